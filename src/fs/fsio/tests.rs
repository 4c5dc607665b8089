use super::*;
use std::fs;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Barrier};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A canonical temp directory and a sandbox on it.
fn setup() -> (tempfile::TempDir, PathBuf, Sandbox) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let sb = Sandbox::open(&root).unwrap();
    (tmp, root, sb)
}

fn soon() -> Deadline {
    Deadline::after(DEFAULT_LOCK_TIMEOUT)
}

fn open(sb: &Sandbox, p: &Path) -> Result<LockedFile> {
    LockedFile::open(sb, p, &soon())
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
fn ino(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    fs::symlink_metadata(p).unwrap().ino()
}

#[test]
fn open_and_read() {
    let (_t, root, sb) = setup();
    let p = root.join("a.txt");
    fs::write(&p, "hello\n").unwrap();
    let mut f = open(&sb, &p).unwrap();
    assert_eq!(f.len(), 6);
    assert!(!f.is_empty());
    assert!(f.writable());
    assert_eq!(f.path(), p);
    assert_eq!(f.read_all(1 << 20).unwrap(), b"hello\n");
    // Twice: reads from the start again.
    assert_eq!(f.read_all(6).unwrap(), b"hello\n");

    let fail = f.read_all(5).unwrap_err();
    assert_eq!(fail.code, Code::FileTooLarge);
    assert_eq!(fail.detail("size"), Some(&6.into()));
    assert_eq!(fail.detail("limit"), Some(&5.into()));

    let empty = root.join("empty");
    fs::write(&empty, "").unwrap();
    let mut f = open(&sb, &empty).unwrap();
    assert!(f.is_empty());
    assert_eq!(f.read_all(0).unwrap(), b"");
}

#[test]
fn open_errors() {
    let (_t, root, sb) = setup();
    let f = open(&sb, &root.join("missing")).unwrap_err();
    assert_eq!(f.code, Code::FileNotFound);
    fs::create_dir(root.join("d")).unwrap();
    let f = open(&sb, &root.join("d")).unwrap_err();
    assert_eq!(f.code, Code::TargetIsDirectory);
    fs::write(root.join("file"), "x").unwrap();
    let f = open(&sb, &root.join("file/below")).unwrap_err();
    assert_eq!(f.code, Code::FileNotFound);
    let f = open(&sb, &root.join("nodir/below")).unwrap_err();
    assert_eq!(f.code, Code::FileNotFound);
    let f = open(&sb, &root.with_file_name("elsewhere")).unwrap_err();
    assert_eq!(f.code, Code::PathOutsideWorkspace);
}

#[cfg(unix)]
#[test]
fn permission_denied() {
    let denied = io::Error::from_raw_os_error(libc::EACCES);
    assert_eq!(
        open_error(&denied, Path::new("x")).code,
        Code::PermissionDenied
    );
    // Root reads anything: only check the real thing as an ordinary user.
    if unsafe { libc::geteuid() } == 0 {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let (_t, root, sb) = setup();
    let p = root.join("secret");
    fs::write(&p, "x").unwrap();
    fs::set_permissions(&p, Permissions::from_mode(0o000)).unwrap();
    assert_eq!(open(&sb, &p).unwrap_err().code, Code::PermissionDenied);
}

#[cfg(unix)]
#[test]
fn read_only_files_are_not_writable() {
    use std::os::unix::fs::PermissionsExt;
    let (_t, root, sb) = setup();
    for (m, w) in [
        (0o644, true),
        (0o444, false),
        (0o400, false),
        (0o555, false),
        (0o464, true),
    ] {
        let p = root.join(format!("f{m:o}"));
        fs::write(&p, "x").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(m)).unwrap();
        assert_eq!(open(&sb, &p).unwrap().writable(), w, "mode {m:o}");
    }
}

#[cfg(unix)]
#[test]
fn special_files_refused() {
    let (_t, root, sb) = setup();
    let fifo = root.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    // Must not hang on the FIFO.
    assert_eq!(open(&sb, &fifo).unwrap_err().code, Code::InvalidInput);
}

#[test]
fn lock_is_exclusive() {
    let (_t, root, sb) = setup();
    let p = root.join("a.txt");
    fs::write(&p, "x").unwrap();
    let held = open(&sb, &p).unwrap();
    let released = Arc::new(AtomicBool::new(false));
    let t = {
        let (p, root, released) = (p.clone(), root.clone(), released.clone());
        std::thread::spawn(move || {
            let sb = Sandbox::open(&root).unwrap();
            let _f = open(&sb, &p).unwrap();
            assert!(released.load(Ordering::SeqCst), "got the lock while held");
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    released.store(true, Ordering::SeqCst);
    drop(held);
    t.join().unwrap();
}

#[test]
fn a_lock_wait_is_bounded() {
    let (_t, root, sb) = setup();
    let p = root.join("a.txt");
    fs::write(&p, "x").unwrap();
    let _held = open(&sb, &p).unwrap();
    let started = Instant::now();
    let f = LockedFile::open(&sb, &p, &Deadline::after(Duration::from_millis(150))).unwrap_err();
    let waited = started.elapsed();
    assert_eq!(f.code, Code::LockTimeout, "{}", f.message);
    assert_eq!(f.detail("lock_timeout_ms"), Some(&150.into()));
    assert!(waited >= Duration::from_millis(150), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    // Directory locks too.
    let _d = DirLock::acquire(&sb, &root, &soon()).unwrap();
    let f = DirLock::acquire(&sb, &root, &Deadline::after(Duration::from_millis(50))).unwrap_err();
    assert_eq!(f.code, Code::LockTimeout);
    // The per-thread setting.
    set_lock_timeout(Some(Duration::from_millis(20)));
    let f = LockedFile::open(&sb, &p, &Deadline::from_setting()).unwrap_err();
    set_lock_timeout(None);
    assert_eq!(f.detail("lock_timeout_ms"), Some(&20.into()));
    assert_eq!(fs::read(&p).unwrap(), b"x");
}

#[test]
fn waiter_reopens_a_replaced_file() {
    let (_t, root, sb) = setup();
    let p = root.join("a.txt");
    fs::write(&p, "old").unwrap();
    let held = open(&sb, &p).unwrap();
    let t = {
        let (p, root) = (p.clone(), root.clone());
        std::thread::spawn(move || {
            let sb = Sandbox::open(&root).unwrap();
            let mut f = open(&sb, &p).unwrap();
            f.read_all(100).unwrap()
        })
    };
    // Let the waiter open the old inode and wait for its lock.
    std::thread::sleep(Duration::from_millis(100));
    sb.write(&p, &[b"new"], Put::Replace(&held.kept())).unwrap();
    drop(held);
    assert_eq!(t.join().unwrap(), b"new");
}

#[test]
fn no_lost_updates_under_contention() {
    let (_t, root, _sb) = setup();
    let p = root.join("counter");
    fs::write(&p, "0").unwrap();
    const THREADS: usize = 8;
    const ROUNDS: usize = 25;
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let (p, root, barrier) = (p.clone(), root.clone(), barrier.clone());
            std::thread::spawn(move || {
                let sb = Sandbox::open(&root).unwrap();
                barrier.wait();
                for _ in 0..ROUNDS {
                    let mut f = open(&sb, &p).unwrap();
                    let n: usize = String::from_utf8(f.read_all(64).unwrap())
                        .unwrap()
                        .parse()
                        .unwrap();
                    sb.write(
                        &p,
                        &[(n + 1).to_string().as_bytes()],
                        Put::Replace(&f.kept()),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        (THREADS * ROUNDS).to_string()
    );
    assert_eq!(names(&root), ["counter"], "no temp files left");
}

#[cfg(unix)]
#[test]
fn symlink_swapped_in_after_resolve_is_not_followed() {
    use crate::fs::workspace::{Resolve, Workspace};
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("root");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("a.txt"), "inside").unwrap();
    let outside = base.join("outside.txt");
    fs::write(&outside, "secret").unwrap();

    let ws = Workspace::new(&root).unwrap();
    let sb = Sandbox::open(ws.root()).unwrap();
    let r = ws.resolve("a.txt", Resolve::Existing).unwrap();
    // The attacker swaps a symlink into the final component.
    let link_tmp = root.join("a.txt.link");
    std::os::unix::fs::symlink(&outside, &link_tmp).unwrap();
    fs::rename(&link_tmp, &r.real).unwrap();

    let f = open(&sb, &r.real).unwrap_err();
    assert_eq!(f.code, Code::FileReadError, "{}", f.message);
    assert_eq!(f.detail("reason"), Some(&"symlink".into()));
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
    assert!(sb.read_regular(&r.real).is_none());
    // A write replaces the link itself, never the target.
    sb.write(&r.real, &[b"mine"], Put::Any).unwrap();
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
    assert_eq!(fs::read_to_string(&r.real).unwrap(), "mine");
}

#[cfg(unix)]
#[test]
fn mode_owner_and_group_are_kept() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (_t, root, sb) = setup();
    for m in [0o600, 0o755, 0o640, 0o444, 0o4755] {
        let p = root.join(format!("f{m:o}"));
        fs::write(&p, "before").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(m)).unwrap();
        let f = open(&sb, &p).unwrap();
        sb.write(&p, &[b"after"], Put::Replace(&f.kept())).unwrap();
        drop(f);
        assert_eq!(mode(&p), m, "mode {m:o} kept");
        assert_eq!(fs::read(&p).unwrap(), b"after");
    }
    // Owner and group: only root may give a file away.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let p = root.join("owned");
    fs::write(&p, "before").unwrap();
    std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
    fs::set_permissions(&p, Permissions::from_mode(0o2664)).unwrap();
    let f = open(&sb, &p).unwrap();
    sb.write(&p, &[b"after"], Put::Replace(&f.kept())).unwrap();
    let m = fs::metadata(&p).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65534));
    assert_eq!(mode(&p), 0o2664, "set-id bits survive the chown");
}

#[cfg(unix)]
#[test]
fn new_file_gets_default_mode() {
    use std::os::unix::fs::OpenOptionsExt;
    let (_t, root, sb) = setup();
    // What the kernel gives a new 0o644 file under the current umask.
    let reference = root.join("reference");
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&reference)
        .unwrap();
    let p = root.join("new.txt");
    sb.write(&p, &[b"x"], Put::CreateNew).unwrap();
    assert_eq!(mode(&p), mode(&reference));
    assert_eq!(mode(&p) & !0o644, 0);
}

#[test]
fn write_replaces_and_leaves_no_temp() {
    let (_t, root, sb) = setup();
    let p = root.join("a.txt");
    sb.write(&p, &[b"one"], Put::CreateNew).unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"one");
    sb.write(&p, &[b"two", b"\r\n"], Put::Any).unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"two\r\n");
    sb.write(&p, &[b""], Put::Any).unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"");
    assert_eq!(names(&root), ["a.txt"]);
}

/// `write_with` runs its hook once, after the new bytes are in the temp file and before they
/// are put in place, and returns what the hook returned; a failed write does not run it.
#[test]
fn write_with_runs_the_hook_before_the_file_is_replaced() {
    let (_t, root, sb) = setup();
    let p = root.join("a.txt");
    fs::write(&p, "old").unwrap();
    let mut runs = 0;
    let seen = sb
        .write_with(&p, &[b"ne", b"w"], Put::Any, || {
            runs += 1;
            let temps: Vec<String> = names(&root).into_iter().filter(|n| n != "a.txt").collect();
            assert_eq!(temps.len(), 1, "the temp file exists while the hook runs");
            assert_eq!(fs::read(root.join(&temps[0])).unwrap(), b"new");
            fs::read(&p).unwrap()
        })
        .unwrap();
    assert_eq!(runs, 1);
    assert_eq!(seen, b"old", "the target is replaced only after the hook");
    assert_eq!(fs::read(&p).unwrap(), b"new");
    assert_eq!(names(&root), ["a.txt"]);
    let f = sb
        .write_with(&root.join("nodir/a.txt"), &[b"x"], Put::Any, || runs += 1)
        .unwrap_err();
    assert_eq!(f.code, Code::FileNotFound);
    assert_eq!(runs, 1, "not run when the write fails");
}

/// The journal's form of the metadata: permission bits only; set-id bits, sticky bit and owner
/// are neither written nor read (an entry may have been written by a tool call).
#[cfg(unix)]
#[test]
fn kept_in_the_journal_is_the_permission_bits_only() {
    use std::os::unix::fs::PermissionsExt;
    let setuid = Kept {
        perms: Permissions::from_mode(0o4755),
        owner: Some((0, 0)),
    };
    assert_eq!(setuid.to_json(), serde_json::json!({"mode": 0o755}));
    let back = Kept::from_json(&setuid.to_json()).unwrap();
    assert_eq!(back.perms.mode() & 0o7777, 0o755);
    assert_eq!(back.owner, None);
    for bad in [
        serde_json::json!({"mode": 0o4755}),
        serde_json::json!({"mode": -1}),
        serde_json::json!({"mode": "755"}),
        serde_json::json!(null),
    ] {
        assert_eq!(Kept::from_json(&bad), None, "{bad}");
    }
    let current = Kept {
        perms: Permissions::from_mode(0o600),
        owner: Some((7, 8)),
    };
    let restored = back.clone().owned_like(Some(&current));
    assert_eq!(restored.owner, Some((7, 8)));
    assert_eq!(restored.perms.mode() & 0o7777, 0o755);
    // Write permission for group and others only where the file has it now.
    let open = Kept::from_json(&serde_json::json!({"mode": 0o777})).unwrap();
    let mode = |k: Kept| k.perms.mode() & 0o7777;
    assert_eq!(mode(open.clone().owned_like(Some(&current))), 0o755);
    assert_eq!(mode(open.clone().owned_like(None)), 0o755);
    let shared = Kept {
        perms: Permissions::from_mode(0o664),
        owner: Some((7, 8)),
    };
    assert_eq!(mode(open.owned_like(Some(&shared))), 0o775);
    // This process's own record (it names the owner) is restored as it was.
    assert_eq!(mode(setuid.clone().owned_like(Some(&current))), 0o4755);
}

#[test]
fn create_new_never_overwrites() {
    let (_t, root, sb) = setup();
    let p = root.join("a.txt");
    fs::write(&p, "theirs").unwrap();
    let f = sb.write(&p, &[b"mine"], Put::CreateNew).unwrap_err();
    assert_eq!(f.code, Code::StaleFile);
    assert_eq!(fs::read(&p).unwrap(), b"theirs");
    assert_eq!(names(&root), ["a.txt"], "no temp left");
}

#[test]
fn write_into_missing_directory_fails_cleanly() {
    let (_t, root, sb) = setup();
    let f = sb
        .write(&root.join("nodir/a.txt"), &[b"x"], Put::Any)
        .unwrap_err();
    assert_eq!(f.code, Code::FileNotFound);
    assert!(names(&root).is_empty());
}

/// Regression (issue #16, item 6): a name of 220-255 bytes could not be written (the temp name
/// was too long).
#[test]
fn names_up_to_255_bytes_can_be_written() {
    let (_t, root, sb) = setup();
    for len in [200usize, 212, 213, 220, 240, 255] {
        let name = "n".repeat(len);
        let p = root.join(&name);
        sb.write(&p, &[b"one"], Put::CreateNew).unwrap();
        let f = open(&sb, &p).unwrap();
        sb.write(&p, &[b"two"], Put::Replace(&f.kept())).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two", "{len}");
        fs::remove_file(&p).unwrap();
    }
    // Multi-byte characters are cut on a character boundary.
    let name = "é".repeat(127);
    sb.write(&root.join(&name), &[b"x"], Put::CreateNew)
        .unwrap();
    let stem = temp_stem(OsStr::new(&name));
    assert!(stem.len() + TEMP_OVERHEAD <= NAME_MAX);
    assert!(stem.to_str().is_some());
    assert_ne!(
        temp_stem(OsStr::new(&"a".repeat(250))),
        temp_stem(OsStr::new(&"a".repeat(251)))
    );
    assert_eq!(names(&root), [name]);
}

#[cfg(unix)]
#[test]
fn injected_fault_leaves_target_and_no_temp() {
    let (_t, root, sb) = setup();
    let p = root.join("victim.txt");
    fs::write(&p, "original").unwrap();
    let before = ino(&p);
    let fresh = root.join("fresh.txt");
    let other = root.join("other.txt");

    let (f, ok) = with_write_fault(p.to_string_lossy(), || {
        let f = sb.write(&p, &[b"changed"], Put::Any).unwrap_err();
        // Another target is not affected by the fault.
        (f, sb.write(&other, &[b"fine"], Put::Any))
    });
    let g = with_write_fault(fresh.to_string_lossy(), || {
        sb.write(&fresh, &[b"new"], Put::CreateNew).unwrap_err()
    });

    assert_eq!(f.code, Code::FileWriteError);
    assert_eq!(g.code, Code::FileWriteError);
    ok.unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"original");
    assert_eq!(ino(&p), before, "target untouched");
    assert!(!fresh.exists(), "a new file is not created");
    assert_eq!(names(&root), ["other.txt", "victim.txt"]);

    // Cleared: writes go through again.
    sb.write(&p, &[b"changed"], Put::Any).unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"changed");
}

#[test]
fn temp_names_are_recognised_strictly() {
    let r = "0123456789abcdef";
    let ok = |n: &str| is_our_temp(OsStr::new(n), Some(OsStr::new("a.txt")));
    let any = |n: &str| is_our_temp(OsStr::new(n), None);
    assert!(ok(&format!(".a.txt.surepatch-123-{r}.tmp")));
    assert!(ok(&format!(".a.txt.surepatch-4294967295-{r}.tmp")));
    assert!(any(&format!(".b.txt.surepatch-123-{r}.tmp")));
    for bad in [
        // The user's file the sweep used to delete: a short random part.
        ".notes.surepatch-2024-01.tmp".to_string(),
        ".a.txt.surepatch-123-00ff.tmp".to_string(),
        format!(".a.txt.surepatch-123-{r}0.tmp"),
        format!(".a.txt.surepatch-123-{}.tmp", &r[1..]),
        format!(".a.txt.surepatch-123-{}.tmp", r.to_uppercase()),
        format!(".a.txt.surepatch-123-{r}.tmp.bak"),
        format!(".a.txt.surepatch-x-{r}.tmp"),
        format!(".a.txt.surepatch--{r}.tmp"),
        format!(".a.txt.surepatch-0123-{r}.tmp"),
        format!(".a.txt.surepatch-12345678901-{r}.tmp"),
        format!(".a.txt.surepatch-123{r}.tmp"),
        format!(".a.txt-123-{r}.tmp"),
        format!("a.txt.surepatch-123-{r}.tmp"),
        format!("..surepatch-123-{r}.tmp"),
        format!(".surepatch-123-{r}.tmp"),
        "a.txt".to_string(),
    ] {
        assert!(!any(&bad), "{bad} is not ours");
    }
    assert!(!ok(&format!(".b.txt.surepatch-123-{r}.tmp")));
    assert!(!ok(&format!(".aa.txt.surepatch-123-{r}.tmp")));
}

/// Every name [`temp_name`] makes has the shape the sweep takes, for short names and for names
/// long enough to be shortened to a stem with a hash.
#[test]
fn generated_temp_names_have_the_swept_shape() {
    for target in [
        "a.txt",
        "x",
        ".hidden",
        "dir.surepatch-1-2",
        &"é".repeat(127),
        &"n".repeat(255),
    ] {
        for _ in 0..50 {
            let t = temp_name(Path::new(target));
            assert!(t.len() <= NAME_MAX, "{t:?}");
            assert!(is_our_temp(&t, Some(OsStr::new(target))), "{t:?}");
            assert!(is_our_temp(&t, None), "{t:?}");
        }
    }
}

#[test]
fn sweep_removes_only_old_matching_temps() {
    let (_t, dir, sb) = setup();
    let old = SystemTime::now() - Duration::from_secs(20 * 60);
    let recent = SystemTime::now() - Duration::from_secs(5 * 60);
    let make = |name: &str, mtime: SystemTime| {
        let f = File::create(dir.join(name)).unwrap();
        f.set_modified(mtime).unwrap();
    };
    make(".a.txt.surepatch-4242-deadbeef00000000.tmp", old); // swept
    make(".a.txt.surepatch-1-00000000000000ff.tmp", old); // swept
    make(".a.txt.surepatch-4242-0123456789abcdef.tmp", recent); // too young
    make(".b.txt.surepatch-4242-deadbeef00000000.tmp", old); // another target's: swept
    make(".notes.surepatch-2024-01.tmp", old); // a user's file: a short random part
    make(".a.txt.surepatch-1-ff.tmp", old); // the same
    make(".a.txt.surepatch-notapid.tmp", old); // not our pattern
    make(".c.surepatch-x.surepatch-12-zz.tmp", old); // not hex
    make("b.txt.surepatch-1-00000000000000ab.tmp", old); // no leading dot
    make("a.txt.bak", old);
    make(".a.txt.swp", old);
    fs::create_dir(dir.join(".a.txt.surepatch-7-00000000000000ab.tmp")).unwrap(); // a directory: kept
    fs::write(dir.join("a.txt"), "x").unwrap();

    SWEEP_ALWAYS.with(|a| a.set(true));
    sb.write(&dir.join("a.txt"), &[b"y"], Put::Any).unwrap();
    SWEEP_ALWAYS.with(|a| a.set(false));
    assert_eq!(
        names(&dir),
        [
            ".a.txt.surepatch-1-ff.tmp",
            ".a.txt.surepatch-4242-0123456789abcdef.tmp",
            ".a.txt.surepatch-7-00000000000000ab.tmp",
            ".a.txt.surepatch-notapid.tmp",
            ".a.txt.swp",
            ".c.surepatch-x.surepatch-12-zz.tmp",
            ".notes.surepatch-2024-01.tmp",
            "a.txt",
            "a.txt.bak",
            "b.txt.surepatch-1-00000000000000ab.tmp",
        ]
    );
    assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"y");
}

/// A stale temp of the right shape that another user owns is theirs to clean up: kept. Needs
/// root (to give the file away); skipped otherwise.
#[cfg(unix)]
#[test]
fn sweep_keeps_other_users_temps() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: giving a file to another user needs root");
        return;
    }
    let (_t, dir, sb) = setup();
    let old = SystemTime::now() - Duration::from_secs(20 * 60);
    let theirs = ".a.txt.surepatch-4242-deadbeef00000000.tmp";
    let ours = ".a.txt.surepatch-4243-deadbeef00000000.tmp";
    for n in [theirs, ours] {
        File::create(dir.join(n))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    std::os::unix::fs::chown(dir.join(theirs), Some(65534), Some(65534)).unwrap();
    fs::write(dir.join("a.txt"), "x").unwrap();
    SWEEP_ALWAYS.with(|a| a.set(true));
    sb.write(&dir.join("a.txt"), &[b"y"], Put::Any).unwrap();
    SWEEP_ALWAYS.with(|a| a.set(false));
    assert_eq!(names(&dir), [theirs, "a.txt"]);
}

/// A directory is listed for leftovers at most once per [`STALE_TEMP_AGE`] by a process: a write
/// in a directory of thousands of names does not pay for listing it every time.
#[test]
fn a_directory_is_swept_once_per_stale_age() {
    let (_t, dir, sb) = setup();
    fs::write(dir.join("a.txt"), "x").unwrap();
    sb.write(&dir.join("a.txt"), &[b"y"], Put::Any).unwrap();
    let d = Dir::open_ambient_dir(&dir, cap_std::ambient_authority()).unwrap();
    assert!(!sweep_due(&d), "just swept by the write");
    let stale = ".a.txt.surepatch-4242-deadbeef00000000.tmp";
    File::create(dir.join(stale))
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(20 * 60))
        .unwrap();
    sb.write(&dir.join("a.txt"), &[b"z"], Put::Any).unwrap();
    assert!(dir.join(stale).exists(), "not listed again so soon");
    assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"z");
}

#[test]
fn dir_lock_serializes_and_leaves_nothing() {
    let (_t, dir, sb) = setup();
    let first = DirLock::acquire(&sb, &dir, &soon()).unwrap();
    let released = Arc::new(AtomicBool::new(false));
    let t = {
        let (dir, released) = (dir.clone(), released.clone());
        std::thread::spawn(move || {
            let sb = Sandbox::open(&dir).unwrap();
            let _l = DirLock::acquire(&sb, &dir, &soon()).unwrap();
            assert!(released.load(Ordering::SeqCst), "got the lock while held");
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    released.store(true, Ordering::SeqCst);
    drop(first);
    t.join().unwrap();
    assert!(names(&dir).is_empty(), "no lock files left");

    assert_eq!(
        DirLock::acquire(&sb, &dir.join("missing"), &soon())
            .unwrap_err()
            .code,
        Code::FileNotFound
    );
    fs::write(dir.join("f"), "x").unwrap();
    assert_eq!(
        DirLock::acquire(&sb, &dir.join("f"), &soon())
            .unwrap_err()
            .code,
        Code::FileNotFound
    );
}

#[test]
fn create_dirs() {
    let (_t, base, _) = setup();
    let root = base.join("root");
    fs::create_dir(&root).unwrap();
    let sb = Sandbox::open(&root).unwrap();
    sb.create_dirs(&root.join("a/b/c")).unwrap();
    assert!(root.join("a/b/c").is_dir());
    // Existing, relative, and the root itself.
    sb.create_dirs(&root.join("a/b")).unwrap();
    sb.create_dirs(Path::new("a/x")).unwrap();
    assert!(root.join("a/x").is_dir());
    sb.create_dirs(&root).unwrap();

    fs::write(root.join("file"), "x").unwrap();
    let f = sb.create_dirs(&root.join("file/sub")).unwrap_err();
    assert_eq!(f.code, Code::InvalidInput);
    let f = sb.create_dirs(&root.join("a/../b")).unwrap_err();
    assert_eq!(f.code, Code::InvalidInput);
    let f = sb.create_dirs(&base.join("elsewhere")).unwrap_err();
    assert_eq!(f.code, Code::PathOutsideWorkspace);
    let f = sb
        .create_dirs(&root.with_file_name("root-evil/x"))
        .unwrap_err();
    assert_eq!(f.code, Code::PathOutsideWorkspace);
    assert!(!root.with_file_name("root-evil").exists());
    assert!(!root.join("b").exists());
}

/// Regression (fuzz finding 5): the directories a call made are known, and removed when what
/// they were made for fails — only those, only while empty; a failure midway removes its own.
#[test]
fn create_dirs_made_and_removed() {
    let (_t, base, _) = setup();
    let root = base.join("root");
    fs::create_dir_all(root.join("old")).unwrap();
    let sb = Sandbox::open(&root).unwrap();
    let made = sb.create_dirs_made(&root.join("old/n1/n2")).unwrap();
    assert_eq!(made, vec![root.join("old/n1"), root.join("old/n1/n2")]);
    assert_eq!(
        sb.create_dirs_made(&root.join("old/n1")).unwrap(),
        Vec::<PathBuf>::new()
    );
    sb.remove_made_dirs(&made);
    assert!(!root.join("old/n1").exists());
    assert!(root.join("old").is_dir());
    // Something put in meanwhile keeps its directory (and the ones above it).
    let made = sb.create_dirs_made(&root.join("k1/k2")).unwrap();
    fs::write(root.join("k1/k2/f"), "x").unwrap();
    sb.remove_made_dirs(&made);
    assert!(root.join("k1/k2/f").is_file());
    // A name too long for the file system, below new directories: nothing is left.
    let long = "y".repeat(300);
    let f = sb
        .create_dirs_made(&root.join("m1/m2").join(&long).join("m3"))
        .unwrap_err();
    assert_eq!(f.code, Code::FileWriteError, "{f:?}");
    assert!(!root.join("m1").exists());
    let mut names: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, vec![OsString::from("k1"), OsString::from("old")]);
}

/// Regression (issue #16, item 1): a directory of a resolved path is real, so a symlink there
/// was swapped in; creating directories through it used to be followed when it led inside.
#[cfg(unix)]
#[test]
fn create_dirs_refuses_symlinks() {
    use std::os::unix::fs::symlink;
    let (_t, base, _) = setup();
    let root = base.join("root");
    fs::create_dir_all(root.join("real")).unwrap();
    fs::create_dir(base.join("out")).unwrap();
    symlink("real", root.join("in_link")).unwrap();
    symlink("../out", root.join("out_link")).unwrap();
    let sb = Sandbox::open(&root).unwrap();
    for link in ["in_link", "out_link"] {
        let f = sb
            .create_dirs(&root.join(link).join("new/deeper"))
            .unwrap_err();
        assert_eq!(f.code, Code::FileReadError, "{link}");
        assert_eq!(f.detail("reason").unwrap(), "symlink");
    }
    assert!(
        names(&base.join("out")).is_empty(),
        "nothing created outside"
    );
    assert!(names(&root.join("real")).is_empty());
}

/// Regression (safety R3, issue #16 item 1): a parent directory swapped for a symlink to outside
/// after the path was resolved: no open, write, unlink or mkdir follows it.
#[cfg(unix)]
#[test]
fn parent_directory_swapped_for_a_symlink_is_not_followed() {
    use std::os::unix::fs::symlink;
    let (_t, base, _) = setup();
    fs::create_dir_all(base.join("root/dir")).unwrap();
    fs::create_dir(base.join("outside")).unwrap();
    fs::write(base.join("root/dir/f.txt"), "inside\n").unwrap();
    fs::write(base.join("outside/f.txt"), "secret\n").unwrap();
    let sb = Sandbox::open(&base.join("root")).unwrap();
    let real = base.join("root/dir/f.txt");
    // The swap, after resolution.
    fs::rename(base.join("root/dir"), base.join("root/dir-aside")).unwrap();
    symlink(base.join("outside"), base.join("root/dir")).unwrap();

    let symlink_refused = |f: Failure| {
        assert_eq!(f.code, Code::FileReadError, "{}", f.message);
        assert_eq!(f.detail("reason"), Some(&"symlink".into()), "{}", f.message);
    };
    symlink_refused(open(&sb, &real).unwrap_err());
    symlink_refused(sb.write(&real, &[b"PWNED\n"], Put::Any).unwrap_err());
    symlink_refused(sb.write(&real, &[b"PWNED\n"], Put::CreateNew).unwrap_err());
    symlink_refused(sb.remove_file(&real).unwrap_err());
    symlink_refused(sb.create_dirs(&base.join("root/dir/n/x")).unwrap_err());
    symlink_refused(DirLock::acquire(&sb, &base.join("root/dir"), &soon()).unwrap_err());
    assert!(sb.read_regular(&real).is_none());
    assert!(!sb.exists(&real));
    sb.remove_dir_all(&base.join("root/dir"));
    assert_eq!(fs::read(base.join("outside/f.txt")).unwrap(), b"secret\n");
    assert_eq!(
        names(&base.join("outside")),
        ["f.txt"],
        "nothing created outside"
    );
    assert_eq!(
        fs::read(base.join("root/dir-aside/f.txt")).unwrap(),
        b"inside\n"
    );
}
