//! The sandbox: turns a path given by the caller (often a model) into the real file it names, and
//! refuses anything whose real location is outside the workspace root.
//!
//! Resolution follows symbolic links component by component, the way the kernel would, so that the
//! check is made on where the bytes really are: `..` escapes, absolute paths elsewhere, symlinks
//! (final or directory components, chains of them, dangling ones) that lead outside, and sibling
//! directories whose names merely share a prefix with the root (`/x/root-evil` for root `/x/root`;
//! containment is compared by path components, never by string prefix) are all refused with
//! `PATH_OUTSIDE_WORKSPACE`.
//!
//! A symlink that stays inside the root resolves to its target, so editing "through" it rewrites the
//! target and keeps the link.
//!
//! # Hard links
//!
//! A hard link is not a path indirection: a hard link inside the root to a file whose other name is
//! outside the root is indistinguishable, by path, from any other file, and cannot be detected here.
//! Edits are written by rename ([`crate::fs::fsio::write_atomic`]), which gives the edited name a new
//! inode: the hard link is broken, the name inside the workspace gets the new content and the other
//! name keeps the old content. So a hard link cannot be used to write outside the root, but it does
//! not stay shared across an edit either.
//!
//! Resolution is a check made at one point in time; [`crate::fs::fsio::LockedFile::open`] does not follow
//! a symlink swapped into the final component afterwards.

use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::error::{Code, Failure, Result};

/// Symbolic links followed in one resolution before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;
/// Longest name of one path component, in bytes (ext4, xfs, btrfs, APFS; see `fsio`).
const NAME_MAX: usize = 255;
/// Longest real path, in bytes: Linux's `PATH_MAX` (4096) less its terminating NUL. The sandbox acts
/// through directory handles and could go deeper, but a file past this limit cannot be named by
/// its path: not by other programs, not by a later call (which resolves it by path).
pub const PATH_MAX_BYTES: usize = 4095;

/// A workspace root: every path resolved through it stays inside.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Canonical (absolute, symlink-free) root directory.
    root: PathBuf,
}

/// What [`Workspace::resolve`] requires of the file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Resolve {
    /// The file must exist (read, edit).
    Existing,
    /// The file, and any of its parent directories, may be missing (create, move target).
    MayCreate,
}

/// A path resolved inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Absolute, with every symlink resolved (for a missing file: where it would be created).
    pub real: PathBuf,
    /// Workspace-relative, with `/` separators.
    pub display: String,
    /// Whether the file exists now.
    pub exists: bool,
}

/// One step of a resolution still to be made.
enum Step {
    /// Restart from a root (`/`, or a Windows prefix with its root).
    Anchor(PathBuf),
    Parent,
    Name(OsString),
}

/// Pushes the steps of `path` onto `stack` so that the first component is popped first.
fn push_steps(stack: &mut Vec<Step>, path: &Path) {
    let mut steps = Vec::new();
    let mut anchor: Option<PathBuf> = None;
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => {
                anchor.get_or_insert_with(PathBuf::new).push(c.as_os_str());
            }
            other => {
                if let Some(a) = anchor.take() {
                    steps.push(Step::Anchor(a));
                }
                match other {
                    Component::CurDir => {}
                    Component::ParentDir => steps.push(Step::Parent),
                    Component::Normal(n) => steps.push(Step::Name(n.to_os_string())),
                    Component::Prefix(_) | Component::RootDir => unreachable!(),
                }
            }
        }
    }
    if let Some(a) = anchor {
        steps.push(Step::Anchor(a));
    }
    stack.extend(steps.into_iter().rev());
}

impl Workspace {
    /// Opens a workspace at `root`, which must be an existing directory. The root is canonicalized
    /// (realpath), so a root given through a symlink is its target.
    pub fn new(root: &Path) -> Result<Workspace> {
        let real = fs::canonicalize(root).map_err(|e| {
            Failure::new(
                Code::InvalidInput,
                format!("the workspace root {} cannot be used: {e}", root.display()),
            )
            .with("root", root.to_string_lossy())
        })?;
        if !real.is_dir() {
            return Err(Failure::new(
                Code::InvalidInput,
                format!("the workspace root {} is not a directory", root.display()),
            )
            .with("root", root.to_string_lossy()));
        }
        Ok(Workspace { root: real })
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether `real` (an absolute, resolved path) is the root or below it, by path components.
    pub fn contains(&self, real: &Path) -> bool {
        real.starts_with(&self.root)
    }

    /// Workspace-relative form of `real`, with `/` separators (`"."` for the root itself). A path
    /// outside the root is returned whole.
    pub fn display(&self, real: &Path) -> String {
        match real.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => {
                let parts: Vec<_> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect();
                parts.join("/")
            }
            Err(_) => real.to_string_lossy().into_owned(),
        }
    }

    /// Resolves a caller's path to the real file it names, inside the workspace.
    ///
    /// Relative paths resolve against the root; absolute ones must resolve inside it. Errors:
    /// - `INVALID_INPUT`: empty path, NUL byte, backslash (not on Windows), too many symlinks, a
    ///   file used as a directory, `..` after a missing directory, or not a regular file;
    /// - `PATH_OUTSIDE_WORKSPACE`: the real location (after every symlink, including dangling ones)
    ///   is outside the root;
    /// - `TARGET_IS_DIRECTORY`: the root, any directory, or a path ending with `/`;
    /// - `FILE_NOT_FOUND` (mode [`Resolve::Existing`]): the file does not exist (a dangling symlink
    ///   pointing inside the root included).
    pub fn resolve(&self, user_path: &str, mode: Resolve) -> Result<Resolved> {
        let invalid = |why: &str| {
            Failure::new(
                Code::InvalidInput,
                format!("invalid path {user_path:?}: {why}"),
            )
            .with("path", user_path)
        };
        if user_path.is_empty() {
            return Err(invalid(
                "the path is empty; name a file inside the workspace",
            ));
        }
        if user_path.contains('\0') {
            return Err(invalid("the path contains a NUL byte"));
        }
        if cfg!(not(windows)) && user_path.contains('\\') {
            return Err(invalid(
                "the path contains a backslash; use '/' to separate directories",
            ));
        }
        // A path ending with a separator, or with a `.` component, names a directory (the kernel
        // refuses `a.txt/` and `a.txt/.` alike; path parsing would drop both and name `a.txt`).
        let trailing_sep = user_path.ends_with('/')
            || user_path.ends_with("/.")
            || (cfg!(windows) && (user_path.ends_with('\\') || user_path.ends_with("\\.")));

        let (real, meta) = self.walk(user_path)?;

        if !self.contains(&real) {
            return Err(Failure::new(
                Code::PathOutsideWorkspace,
                format!(
                    "{user_path:?} resolves to {}, outside the workspace root {}",
                    real.display(),
                    self.root.display()
                ),
            )
            .with("path", user_path));
        }
        let display = self.display(&real);
        let is_dir = |why: String| {
            Failure::new(Code::TargetIsDirectory, why)
                .with("path", user_path)
                .with("resolved", &display)
        };
        match meta {
            Some(m) if m.is_dir() => Err(is_dir(if real == self.root {
                format!("{user_path:?} is the workspace root, a directory; name a file in it")
            } else {
                format!("{user_path:?} is a directory ({display}); name a file in it")
            })),
            Some(_) if trailing_sep => Err(invalid(&format!(
                "it ends with '/' or '/.', so it names a directory, but {display} is a file; drop the ending"
            ))),
            Some(m) if !m.is_file() => Err(invalid(&format!(
                "{display} is not a regular file (a device, socket or pipe)"
            ))),
            Some(_) => Ok(Resolved {
                real,
                display,
                exists: true,
            }),
            None if trailing_sep => Err(is_dir(format!(
                "{user_path:?} ends with '/' or '/.', so it names a directory; name a file"
            ))),
            None if mode == Resolve::Existing => Err(Failure::new(
                Code::FileNotFound,
                format!(
                    "{display} does not exist; check the path (list the directory) or create the file"
                ),
            )
            .with("path", user_path)
            .with("resolved", &display)),
            None => Ok(Resolved {
                real,
                display,
                exists: false,
            }),
        }
    }

    /// Where `user_path` names a symbolic link itself (its last component is one, its directories
    /// resolved as [`Workspace::resolve`] resolves them): the link's workspace-relative path. `None`
    /// when the last component is not a link, or the path cannot be resolved (`resolve` says why).
    pub fn final_symlink(&self, user_path: &str) -> Option<String> {
        let p = Path::new(user_path);
        let Some(Component::Normal(name)) = p.components().next_back() else {
            return None;
        };
        let parent = p.parent().and_then(Path::to_str).filter(|d| !d.is_empty());
        let (dir, meta) = self.walk(parent.unwrap_or(".")).ok()?;
        if !meta.is_some_and(|m| m.is_dir()) || !self.contains(&dir) {
            return None;
        }
        let link = dir.join(name);
        let m = fs::symlink_metadata(&link).ok()?;
        m.file_type().is_symlink().then(|| self.display(&link))
    }

    /// Resolves `user_path` component by component, following every symlink (dangling ones to where
    /// their target would be). Returns the real path and its metadata, `None` if it does not exist.
    fn walk(&self, user_path: &str) -> Result<(PathBuf, Option<fs::Metadata>)> {
        let invalid = |why: String| {
            Failure::new(
                Code::InvalidInput,
                format!("invalid path {user_path:?}: {why}"),
            )
            .with("path", user_path)
        };
        let io = |e: &std::io::Error, p: &Path| {
            Failure::io(e, true, &p.to_string_lossy()).with("path", user_path)
        };

        let mut stack = Vec::new();
        push_steps(&mut stack, Path::new(user_path));
        // Relative paths start at the (canonical) root; absolute ones at their own anchor.
        let mut real = self.root.clone();
        // Set once a component is missing: everything below it is missing too.
        let mut missing: Option<PathBuf> = None;
        let mut links = 0usize;

        while let Some(step) = stack.pop() {
            match step {
                Step::Anchor(a) => {
                    // Only reachable before anything is missing: missing directories hold no links.
                    real = fs::canonicalize(&a).map_err(|e| io(&e, &a))?;
                }
                Step::Parent => {
                    if let Some(m) = &missing {
                        return Err(invalid(format!(
                            "'..' follows {}, which does not exist",
                            self.display(m)
                        )));
                    }
                    // `real` is a real directory (no symlinks), so its parent is `..`.
                    real.pop();
                }
                Step::Name(name) => {
                    let next = real.join(&name);
                    if name.len() > NAME_MAX {
                        return Err(invalid(format!(
                            "a name in it is longer than the file system allows \
                             (255 bytes on most): {} bytes",
                            name.len()
                        )));
                    }
                    if next.as_os_str().len() > PATH_MAX_BYTES {
                        return Err(invalid(format!(
                            "it is longer than the system allows: {} bytes as a real path, \
                             at most {PATH_MAX_BYTES}",
                            next.as_os_str().len()
                        )));
                    }
                    if missing.is_some() {
                        real = next;
                        continue;
                    }
                    match fs::symlink_metadata(&next) {
                        Ok(m) if m.file_type().is_symlink() => {
                            links += 1;
                            if links > MAX_LINKS {
                                return Err(invalid(format!(
                                    "too many levels of symbolic links (a link loop?) at {}",
                                    next.display()
                                )));
                            }
                            let target = match fs::read_link(&next) {
                                Ok(t) => t,
                                // No longer a link (swapped meanwhile): look at it again; the
                                // link count bounds the retries.
                                Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                                    stack.push(Step::Name(name));
                                    continue;
                                }
                                Err(e) => return Err(io(&e, &next)),
                            };
                            // A relative target resolves from the link's directory: `real`.
                            push_steps(&mut stack, &target);
                        }
                        Ok(m) => {
                            if !m.is_dir() && !stack.is_empty() {
                                return Err(invalid(format!(
                                    "{} is a file, not a directory",
                                    self.display(&next)
                                )));
                            }
                            real = next;
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                            missing = Some(next.clone());
                            real = next;
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::InvalidFilename => {
                            return Err(invalid(format!(
                                "a name in it is longer than the file system allows \
                                 (255 bytes on most): {} bytes",
                                name.len()
                            )))
                        }
                        Err(e) => return Err(io(&e, &next)),
                    }
                }
            }
        }
        if missing.is_some() {
            return Ok((real, None));
        }
        let meta = fs::symlink_metadata(&real).map_err(|e| io(&e, &real))?;
        Ok((real, Some(meta)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_canonicalizes_and_checks_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        fs::create_dir(&root).unwrap();
        let ws = Workspace::new(&root.join("..").join("root")).unwrap();
        assert_eq!(ws.root(), fs::canonicalize(&root).unwrap());

        let f = Workspace::new(&tmp.path().join("missing")).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
        fs::write(tmp.path().join("file"), "x").unwrap();
        let f = Workspace::new(&tmp.path().join("file")).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
        assert!(f.message.contains("not a directory"), "{}", f.message);
    }

    #[cfg(unix)]
    #[test]
    fn root_given_through_a_symlink_is_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(&root, tmp.path().join("alias")).unwrap();
        let ws = Workspace::new(&tmp.path().join("alias")).unwrap();
        assert_eq!(ws.root(), fs::canonicalize(&root).unwrap());
        let r = ws.resolve("a.txt", Resolve::Existing).unwrap();
        assert_eq!(r.real, ws.root().join("a.txt"));
        // An absolute path through the alias resolves inside too.
        let abs = tmp.path().join("alias/a.txt");
        let r = ws
            .resolve(abs.to_str().unwrap(), Resolve::Existing)
            .unwrap();
        assert_eq!(r.display, "a.txt");
    }

    #[test]
    fn display_is_relative_with_slashes() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Workspace::new(tmp.path()).unwrap();
        assert_eq!(ws.display(&ws.root().join("a").join("b.txt")), "a/b.txt");
        assert_eq!(ws.display(ws.root()), ".");
    }

    /// Expected outcome of one resolution.
    #[derive(Debug)]
    enum Want {
        /// Resolves; (display, exists).
        Ok(&'static str, bool),
        Err(Code),
    }

    struct Fixture {
        _tmp: tempfile::TempDir,
        base: PathBuf,
        ws: Workspace,
    }

    /// base/
    ///   root/  a.txt  ..foo  dir/b.txt  (+ symlinks under unix)
    ///   root-evil/x.txt
    ///   outside.txt
    ///   outdir/c.txt
    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        fs::create_dir_all(root.join("dir")).unwrap();
        fs::write(root.join("a.txt"), "a").unwrap();
        fs::write(root.join("..foo"), "dots").unwrap();
        fs::write(root.join("dir/b.txt"), "b").unwrap();
        fs::create_dir(base.join("root-evil")).unwrap();
        fs::write(base.join("root-evil/x.txt"), "x").unwrap();
        fs::write(base.join("outside.txt"), "out").unwrap();
        fs::create_dir(base.join("outdir")).unwrap();
        fs::write(base.join("outdir/c.txt"), "c").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            let l = |target: &str, name: &str| symlink(target, root.join(name)).unwrap();
            l("a.txt", "link_in");
            symlink(root.join("dir/b.txt"), root.join("link_in_abs")).unwrap();
            l("dir", "dirlink_in");
            l("chain2", "chain1");
            l("dirlink_in/../a.txt", "chain2");
            l("../outside.txt", "link_out");
            symlink(base.join("outside.txt"), root.join("link_out_abs")).unwrap();
            l("../outdir", "dirlink_out");
            l("chain_out2", "chain_out1");
            l("dir/../../outside.txt", "chain_out2");
            l("nothere.txt", "dangling_in");
            l("../nothere.txt", "dangling_out");
            l("newdir", "dangling_dir_in");
            l("../root-evil", "evil_dir");
            l("loop2", "loop1");
            l("loop1", "loop2");
            l("../../", "up_and_away");
            symlink(base.join("outdir/c.txt"), root.join("dir/deep_out")).unwrap();
        }
        let ws = Workspace::new(&root).unwrap();
        Fixture {
            _tmp: tmp,
            base,
            ws,
        }
    }

    fn check(fx: &Fixture, cases: &[(String, Resolve, Want)]) {
        for (path, mode, want) in cases {
            let got = fx.ws.resolve(path, *mode);
            match (want, &got) {
                (Want::Ok(display, exists), Ok(r)) => {
                    assert_eq!(r.display, *display, "{path:?} {mode:?}");
                    assert_eq!(r.exists, *exists, "{path:?} {mode:?}");
                    assert_eq!(r.real, fx.ws.root().join(display), "{path:?} {mode:?}");
                    assert!(r.real.is_absolute());
                }
                (Want::Err(code), Err(f)) => {
                    assert_eq!(f.code, *code, "{path:?} {mode:?}: {}", f.message);
                    assert!(!f.message.is_empty());
                }
                _ => panic!("{path:?} {mode:?}: wanted {want:?}, got {got:?}"),
            }
        }
    }

    /// Both modes expect the same outcome.
    fn both(path: impl Into<String>, want: fn() -> Want) -> [(String, Resolve, Want); 2] {
        let p = path.into();
        [
            (p.clone(), Resolve::Existing, want()),
            (p, Resolve::MayCreate, want()),
        ]
    }

    #[test]
    fn plain_paths() {
        use Resolve::*;
        use Want::*;
        let fx = fixture();
        let root = fx.ws.root().to_str().unwrap().to_string();
        let base = fx.base.to_str().unwrap().to_string();
        let mut cases = vec![
            ("a.txt".into(), Existing, Ok("a.txt", true)),
            ("./a.txt".into(), Existing, Ok("a.txt", true)),
            ("dir/b.txt".into(), Existing, Ok("dir/b.txt", true)),
            ("dir//./b.txt".into(), Existing, Ok("dir/b.txt", true)),
            ("dir/../a.txt".into(), Existing, Ok("a.txt", true)),
            ("..foo".into(), Existing, Ok("..foo", true)),
            ("dir/../..foo".into(), MayCreate, Ok("..foo", true)),
            ("a.txt".into(), MayCreate, Ok("a.txt", true)),
            // Leaves the root and comes back: the real location is inside.
            ("../root/a.txt".into(), Existing, Ok("a.txt", true)),
            (format!("{root}/dir/b.txt"), Existing, Ok("dir/b.txt", true)),
            // Missing files.
            ("new.txt".into(), Existing, Err(Code::FileNotFound)),
            ("new.txt".into(), MayCreate, Ok("new.txt", false)),
            ("x/y/new.txt".into(), Existing, Err(Code::FileNotFound)),
            ("x/y/new.txt".into(), MayCreate, Ok("x/y/new.txt", false)),
            ("..new".into(), MayCreate, Ok("..new", false)),
            (
                format!("{root}/x/new.txt"),
                MayCreate,
                Ok("x/new.txt", false),
            ),
            ("x/../new.txt".into(), MayCreate, Err(Code::InvalidInput)),
            ("x/../new.txt".into(), Existing, Err(Code::InvalidInput)),
            // A file used as a directory.
            ("a.txt/x".into(), MayCreate, Err(Code::InvalidInput)),
            ("a.txt/../a.txt".into(), Existing, Err(Code::InvalidInput)),
            // Trailing separator.
            ("a.txt/".into(), Existing, Err(Code::InvalidInput)),
            ("newdir/".into(), MayCreate, Err(Code::TargetIsDirectory)),
        ];
        for (p, w) in [
            // Bad input.
            ("", (|| Err(Code::InvalidInput)) as fn() -> Want),
            ("a\0b.txt", || Err(Code::InvalidInput)),
            // Escapes.
            ("../outside.txt", || Err(Code::PathOutsideWorkspace)),
            ("..", || Err(Code::PathOutsideWorkspace)),
            ("../nothere.txt", || Err(Code::PathOutsideWorkspace)),
            ("dir/../../outside.txt", || Err(Code::PathOutsideWorkspace)),
            ("../../../../../../../../etc/passwd", || {
                Err(Code::PathOutsideWorkspace)
            }),
            ("/etc/passwd", || Err(Code::PathOutsideWorkspace)),
            ("/", || Err(Code::PathOutsideWorkspace)),
            ("../root-evil/x.txt", || Err(Code::PathOutsideWorkspace)),
            ("../outdir/new/deeper.txt", || {
                Err(Code::PathOutsideWorkspace)
            }),
            // Directories.
            (".", || Err(Code::TargetIsDirectory)),
            ("dir", || Err(Code::TargetIsDirectory)),
            ("dir/", || Err(Code::TargetIsDirectory)),
            ("dir/..", || Err(Code::TargetIsDirectory)),
        ] {
            cases.extend(both(p, w));
        }
        cases.extend(both(format!("{base}/root-evil/x.txt"), || {
            Err(Code::PathOutsideWorkspace)
        }));
        cases.extend(both(format!("{base}/root-evil/new.txt"), || {
            Err(Code::PathOutsideWorkspace)
        }));
        cases.extend(both(format!("{base}/outside.txt"), || {
            Err(Code::PathOutsideWorkspace)
        }));
        cases.extend(both(root.clone(), || Err(Code::TargetIsDirectory)));
        cases.extend(both(format!("{root}/"), || Err(Code::TargetIsDirectory)));
        #[cfg(not(windows))]
        cases.extend(both("dir\\b.txt", || Err(Code::InvalidInput)));
        check(&fx, &cases);
    }

    #[test]
    fn messages_say_why() {
        let fx = fixture();
        let msg = |p: &str| fx.ws.resolve(p, Resolve::MayCreate).unwrap_err().message;
        assert!(msg("").contains("empty"));
        assert!(msg("a\0").contains("NUL"));
        #[cfg(not(windows))]
        assert!(msg("a\\b").contains("backslash"));
        let f = fx.ws.resolve("nope.txt", Resolve::Existing).unwrap_err();
        assert!(f.message.contains("check the path"), "{}", f.message);
        assert_eq!(f.detail("path"), Some(&"nope.txt".into()));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks() {
        use Resolve::*;
        use Want::*;
        let fx = fixture();
        let mut cases = vec![
            // Inside links resolve to their target.
            ("link_in".into(), Existing, Ok("a.txt", true)),
            ("link_in_abs".into(), Existing, Ok("dir/b.txt", true)),
            ("dirlink_in/b.txt".into(), Existing, Ok("dir/b.txt", true)),
            (
                "dirlink_in/new.txt".into(),
                MayCreate,
                Ok("dir/new.txt", false),
            ),
            ("chain1".into(), Existing, Ok("a.txt", true)),
            ("chain1".into(), MayCreate, Ok("a.txt", true)),
            // `..` after a directory symlink is taken from the link's target, like the kernel.
            ("dirlink_in/../a.txt".into(), Existing, Ok("a.txt", true)),
            // Dangling link inside the root.
            ("dangling_in".into(), Existing, Err(Code::FileNotFound)),
            ("dangling_in".into(), MayCreate, Ok("nothere.txt", false)),
            (
                "dangling_dir_in/new.txt".into(),
                MayCreate,
                Ok("newdir/new.txt", false),
            ),
            (
                "dangling_dir_in/new.txt".into(),
                Existing,
                Err(Code::FileNotFound),
            ),
            ("dirlink_in".into(), Existing, Err(Code::TargetIsDirectory)),
        ];
        for (p, w) in [
            (
                "link_out",
                (|| Err(Code::PathOutsideWorkspace)) as fn() -> Want,
            ),
            ("link_out_abs", || Err(Code::PathOutsideWorkspace)),
            ("dirlink_out/c.txt", || Err(Code::PathOutsideWorkspace)),
            ("dirlink_out/new.txt", || Err(Code::PathOutsideWorkspace)),
            ("dirlink_out/new/deeper.txt", || {
                Err(Code::PathOutsideWorkspace)
            }),
            ("chain_out1", || Err(Code::PathOutsideWorkspace)),
            ("dangling_out", || Err(Code::PathOutsideWorkspace)),
            ("evil_dir/x.txt", || Err(Code::PathOutsideWorkspace)),
            ("up_and_away/outside.txt", || {
                Err(Code::PathOutsideWorkspace)
            }),
            ("dir/deep_out", || Err(Code::PathOutsideWorkspace)),
            ("loop1", || Err(Code::InvalidInput)),
            ("loop1/x.txt", || Err(Code::InvalidInput)),
        ] {
            cases.extend(both(p, w));
        }
        check(&fx, &cases);

        // The link itself is untouched by resolution; its target is what gets edited.
        let r = fx.ws.resolve("link_in", Resolve::Existing).unwrap();
        assert_eq!(r.real, fx.ws.root().join("a.txt"));
        assert!(fs::symlink_metadata(fx.ws.root().join("link_in"))
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused() {
        let fx = fixture();
        let sock = fx.ws.root().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let f = fx.ws.resolve("sock", Resolve::Existing).unwrap_err();
        assert_eq!(f.code, Code::InvalidInput);
        assert!(f.message.contains("regular file"), "{}", f.message);
    }

    /// Regression (issue #16, item 6): `a.txt/.` was accepted as `a.txt`.
    #[test]
    fn a_dot_after_a_file_is_refused_like_a_trailing_slash() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a.txt"), "x").unwrap();
        fs::create_dir(tmp.path().join("d")).unwrap();
        let ws = Workspace::new(tmp.path()).unwrap();
        for p in ["a.txt/.", "a.txt/", "./a.txt/.", "d/../a.txt/."] {
            for mode in [Resolve::Existing, Resolve::MayCreate] {
                let f = ws.resolve(p, mode).unwrap_err();
                assert_eq!(f.code, Code::InvalidInput, "{p}: {}", f.message);
            }
        }
        for p in ["new.txt/.", "d/.", "d/new/."] {
            let f = ws.resolve(p, Resolve::MayCreate).unwrap_err();
            assert_eq!(f.code, Code::TargetIsDirectory, "{p}: {}", f.message);
        }
        // A `.` inside the path is still fine.
        assert!(
            ws.resolve("./d/./../a.txt", Resolve::Existing)
                .unwrap()
                .exists
        );
        assert_eq!(fs::read(tmp.path().join("a.txt")).unwrap(), b"x");
    }
}
