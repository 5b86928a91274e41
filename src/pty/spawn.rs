//! Starting the child with `posix_spawn` instead of fork + exec.
//!
//! The session host is one large multithreaded process, and a fork copies its memory map and
//! page tables for every start: at 1,000 sessions a start cost 27 ms, mostly that copy and its
//! teardown at exec. glibc's `posix_spawn` starts the child with `clone(CLONE_VM |
//! CLONE_VFORK)`, which copies nothing, and can do in the child everything a program in a
//! terminal needs:
//! - a new session (`POSIX_SPAWN_SETSID`), so the child's pid is its session and group id;
//! - the terminal opened by name, which makes it the new session's controlling terminal (a
//!   session leader without one acquires the first terminal it opens), as stdin, stdout and
//!   stderr;
//! - the working directory, no other descriptor (`closefrom`), default signal dispositions
//!   and an empty signal mask (the host ignores `SIGPIPE`; its children must not). glibc's
//!   two internal signals stay ignored, as after every `posix_spawn`; libc installs its own
//!   handlers for them in the child.
//!
//! Errors of the exec itself (a missing interpreter, `ENOEXEC`) come back from the call.

// The libc calls below have no safe wrapper in the crates this project uses; everything they
// are given lives until the call returns.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString, OsStr, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;

use rustix::process::Pid;

/// What to start: the executable's path, its arguments (argument 0 first), its whole
/// environment, its working directory and the terminal it runs in.
pub(super) struct Spawn<'a> {
    pub executable: &'a Path,
    pub argv: &'a [&'a OsStr],
    pub env: &'a [(OsString, OsString)],
    pub cwd: &'a Path,
    pub terminal: &'a Path,
}

impl Spawn<'_> {
    /// Starts the child; it has exec'd (or failed to) when this returns.
    pub(super) fn run(&self) -> io::Result<Pid> {
        let executable = c_string(self.executable.as_os_str())?;
        let argv = self
            .argv
            .iter()
            .map(|a| c_string(a))
            .collect::<io::Result<Vec<_>>>()?;
        let env = self
            .env
            .iter()
            .map(|(k, v)| {
                let mut pair = OsString::with_capacity(k.len() + v.len() + 1);
                pair.push(k);
                pair.push("=");
                pair.push(v);
                c_string(&pair)
            })
            .collect::<io::Result<Vec<_>>>()?;
        let cwd = c_string(self.cwd.as_os_str())?;
        let terminal = c_string(self.terminal.as_os_str())?;

        let mut actions = FileActions::new()?;
        actions.chdir(&cwd)?;
        actions.open(0, &terminal, libc::O_RDWR)?;
        actions.dup2(0, 1)?;
        actions.dup2(0, 2)?;
        actions.close_from(3)?;
        let attributes = Attributes::new()?;

        let argv_ptrs = null_terminated(&argv);
        let env_ptrs = null_terminated(&env);
        let mut pid: libc::pid_t = 0;
        // SAFETY: every pointer is valid for the call: the strings and arrays above outlive
        // it, both arrays end with a null pointer, and `actions` and `attributes` are
        // initialised.
        let rc = unsafe {
            libc::posix_spawn(
                &mut pid,
                executable.as_ptr(),
                actions.as_ptr(),
                attributes.as_ptr(),
                argv_ptrs.as_ptr(),
                env_ptrs.as_ptr(),
            )
        };
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc));
        }
        Pid::from_raw(pid).ok_or_else(|| io::Error::other("posix_spawn returned no pid"))
    }
}

fn c_string(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} contains a NUL byte", s.to_string_lossy()),
        )
    })
}

/// The `char *const[]` that `posix_spawn` takes; it borrows `strings`.
fn null_terminated(strings: &[CString]) -> Vec<*mut libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(ptr::null_mut()))
        .collect()
}

/// Turns a libc return code (0 or an errno value) into a result.
fn check(rc: libc::c_int) -> io::Result<()> {
    match rc {
        0 => Ok(()),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

/// What the child does before its exec, in order.
struct FileActions(Box<MaybeUninit<libc::posix_spawn_file_actions_t>>);

impl FileActions {
    fn new() -> io::Result<FileActions> {
        let mut actions = Box::new(MaybeUninit::uninit());
        // SAFETY: initialises the value in place; it is destroyed only once this succeeded.
        check(unsafe { libc::posix_spawn_file_actions_init(actions.as_mut_ptr()) })?;
        Ok(FileActions(actions))
    }

    fn as_ptr(&self) -> *const libc::posix_spawn_file_actions_t {
        self.0.as_ptr()
    }

    fn as_mut_ptr(&mut self) -> *mut libc::posix_spawn_file_actions_t {
        self.0.as_mut_ptr()
    }

    fn chdir(&mut self, dir: &CString) -> io::Result<()> {
        // SAFETY: initialised actions; glibc copies the path.
        check(unsafe {
            libc::posix_spawn_file_actions_addchdir_np(self.as_mut_ptr(), dir.as_ptr())
        })
    }

    fn open(&mut self, fd: libc::c_int, path: &CString, flags: libc::c_int) -> io::Result<()> {
        // SAFETY: initialised actions; glibc copies the path.
        check(unsafe {
            libc::posix_spawn_file_actions_addopen(self.as_mut_ptr(), fd, path.as_ptr(), flags, 0)
        })
    }

    fn dup2(&mut self, from: libc::c_int, to: libc::c_int) -> io::Result<()> {
        // SAFETY: initialised actions.
        check(unsafe { libc::posix_spawn_file_actions_adddup2(self.as_mut_ptr(), from, to) })
    }

    fn close_from(&mut self, fd: libc::c_int) -> io::Result<()> {
        // SAFETY: initialised actions.
        check(unsafe { libc::posix_spawn_file_actions_addclosefrom_np(self.as_mut_ptr(), fd) })
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(self.as_mut_ptr()) };
    }
}

/// A new session, every signal at its default disposition, none blocked.
struct Attributes(Box<MaybeUninit<libc::posix_spawnattr_t>>);

impl Attributes {
    fn new() -> io::Result<Attributes> {
        let mut attr = Box::new(MaybeUninit::uninit());
        // SAFETY: initialises the value in place; it is destroyed only once this succeeded.
        check(unsafe { libc::posix_spawnattr_init(attr.as_mut_ptr()) })?;
        let mut attributes = Attributes(attr);
        // The flags are small constants of two C types; `posix_spawnattr_setflags` takes a short.
        let flags = libc::POSIX_SPAWN_SETSID
            | (libc::POSIX_SPAWN_SETSIGDEF | libc::POSIX_SPAWN_SETSIGMASK) as libc::c_short;
        let mut all = MaybeUninit::<libc::sigset_t>::uninit();
        let mut none = MaybeUninit::<libc::sigset_t>::uninit();
        // SAFETY: the sets are initialised by sigfillset/sigemptyset before they are read;
        // the attributes are initialised.
        unsafe {
            if libc::sigfillset(all.as_mut_ptr()) != 0 || libc::sigemptyset(none.as_mut_ptr()) != 0
            {
                return Err(io::Error::last_os_error());
            }
            let attr = attributes.0.as_mut_ptr();
            check(libc::posix_spawnattr_setsigdefault(attr, all.as_ptr()))?;
            check(libc::posix_spawnattr_setsigmask(attr, none.as_ptr()))?;
            check(libc::posix_spawnattr_setflags(attr, flags))?;
        }
        Ok(attributes)
    }

    fn as_ptr(&self) -> *const libc::posix_spawnattr_t {
        self.0.as_ptr()
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(self.0.as_mut_ptr()) };
    }
}

/// The user's login shell from the password database; `/bin/sh` without one.
pub(super) fn login_shell() -> OsString {
    let mut buf: Vec<libc::c_char> = vec![0; 1024];
    let mut entry = MaybeUninit::<libc::passwd>::uninit();
    let mut found: *mut libc::passwd = ptr::null_mut();
    loop {
        // SAFETY: `entry` and `buf` are writable for the sizes given; `found` is set to null
        // or to `entry`, whose strings point into `buf`.
        let rc = unsafe {
            libc::getpwuid_r(
                libc::getuid(),
                entry.as_mut_ptr(),
                buf.as_mut_ptr(),
                buf.len(),
                &mut found,
            )
        };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        break;
    }
    // SAFETY: a non-null `found` is `entry`, filled in, with `pw_shell` null or a string in
    // `buf`, which is still alive.
    let shell = unsafe {
        match found.as_ref() {
            Some(entry) if !entry.pw_shell.is_null() => CStr::from_ptr(entry.pw_shell).to_bytes(),
            _ => b"",
        }
    };
    let shell: &[u8] = if shell.is_empty() { b"/bin/sh" } else { shell };
    OsStr::from_bytes(shell).to_owned()
}
