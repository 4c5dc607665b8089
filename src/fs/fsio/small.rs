//! Reading small regular files (ignore files and the like) without following links or blocking on
//! FIFOs and devices: [`read_small_regular`].

use super::*;

/// What [`Sandbox::read_small_regular`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum SmallFile {
    /// Nothing by that name (or a directory on the way is missing or a file).
    Missing,
    /// The whole file.
    Read(Vec<u8>),
    /// There is something by that name, and it was not read.
    Refused(SmallRefusal),
}

/// Why [`Sandbox::read_small_regular`] did not read an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SmallRefusal {
    /// A symbolic link (never followed, wherever it points).
    Symlink,
    /// A FIFO, socket, device or directory.
    NotRegularFile,
    /// Larger than the cap.
    TooLarge,
    /// It could not be opened or read.
    Unreadable,
}

impl SmallRefusal {
    /// The stable string form used in receipts.
    pub fn as_str(self) -> &'static str {
        match self {
            SmallRefusal::Symlink => "symlink",
            SmallRefusal::NotRegularFile => "not_regular_file",
            SmallRefusal::TooLarge => "too_large",
            SmallRefusal::Unreadable => "unreadable",
        }
    }
}

/// The small regular file `name` of the directory `dir` (a handle from [`Sandbox::open_dir`]),
/// read only when it is one: see [`SmallFile`]. Nothing can make this block or read without
/// bound: the entry is looked at without following a link (a symlink is refused, whatever it
/// points to), opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in after the look does not
/// block the open) and looked at again through the open descriptor (`fstat`: a regular file, at
/// most `cap` bytes), and at most `cap + 1` bytes are read (a file that grew past `cap` is
/// refused).
pub fn read_small_regular(dir: &Dir, name: &OsStr, cap: u64) -> SmallFile {
    let missing = |e: &io::Error| {
        matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        )
    };
    let meta = match dir.symlink_metadata(name) {
        Ok(m) => m,
        Err(e) if missing(&e) => return SmallFile::Missing,
        Err(_) => return SmallFile::Refused(SmallRefusal::Unreadable),
    };
    if meta.file_type().is_symlink() {
        return SmallFile::Refused(SmallRefusal::Symlink);
    }
    if !meta.is_file() {
        return SmallFile::Refused(SmallRefusal::NotRegularFile);
    }
    if meta.len() > cap {
        return SmallFile::Refused(SmallRefusal::TooLarge);
    }
    let file = match dir.open_with(name, &read_options()) {
        Ok(f) => f.into_std(),
        Err(e) if is_loop(&e) => return SmallFile::Refused(SmallRefusal::Symlink),
        Err(e) if missing(&e) => return SmallFile::Missing,
        Err(_) => return SmallFile::Refused(SmallRefusal::Unreadable),
    };
    // Swapped between the look and the open: what was opened is what counts.
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(_) => return SmallFile::Refused(SmallRefusal::Unreadable),
    };
    if !meta.is_file() {
        return SmallFile::Refused(SmallRefusal::NotRegularFile);
    }
    if meta.len() > cap {
        return SmallFile::Refused(SmallRefusal::TooLarge);
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    if (&file)
        .take(cap.saturating_add(1))
        .read_to_end(&mut buf)
        .is_err()
    {
        return SmallFile::Refused(SmallRefusal::Unreadable);
    }
    if buf.len() as u64 > cap {
        return SmallFile::Refused(SmallRefusal::TooLarge);
    }
    SmallFile::Read(buf)
}
