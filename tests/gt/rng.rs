//! A small deterministic random source: SplitMix64 from a `u64` seed, or (for the cargo-fuzz target)
//! the fuzz input's bytes first, then SplitMix64 from what they left.

/// Every choice of the generator goes through this.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    /// Bytes still to be read before SplitMix64 takes over (fuzz input); empty for a seeded run.
    bytes: Vec<u8>,
    at: usize,
}

/// SplitMix64's output function.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of case `index` of a run seeded `seed`: each case can be replayed alone.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    mix(seed ^ mix(index.wrapping_add(0x5EED)))
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng {
            state: seed,
            bytes: Vec::new(),
            at: 0,
        }
    }

    /// Choices read from `data` (one byte per small choice) until it runs out.
    pub fn from_bytes(data: &[u8]) -> Self {
        let seed = data.iter().fold(0xCBF2_9CE4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01B3)
        });
        Rng {
            state: seed,
            bytes: data.to_vec(),
            at: 0,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        if self.at < self.bytes.len() {
            let b = self.bytes[self.at] as usize;
            self.at += 1;
            if n <= 256 {
                return b % n;
            }
            return (b << 16 | (self.next_u64() as usize & 0xFFFF)) % n;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with chance `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// One of `xs`, each with its weight.
    pub fn weighted<T: Copy>(&mut self, xs: &[(T, usize)]) -> T {
        let total: usize = xs.iter().map(|x| x.1).sum();
        let mut r = self.below(total);
        for &(x, w) in xs {
            if r < w {
                return x;
            }
            r -= w;
        }
        xs[xs.len() - 1].0
    }
}
