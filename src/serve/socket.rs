//! The listening socket and its connections, Unix or TCP alike, and the socket file.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use crate::session::error::{ErrorCode, SessionError};

pub(super) enum Listener {
    Unix(UnixListener),
    Tcp(TcpListener),
}

impl Listener {
    pub(super) fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Listener::Unix(l) => l.as_fd(),
            Listener::Tcp(l) => l.as_fd(),
        }
    }

    pub(super) fn accept(&self) -> io::Result<Stream> {
        match self {
            Listener::Unix(l) => l.accept().map(|(s, _)| Stream::Unix(s)),
            Listener::Tcp(l) => l.accept().map(|(s, _)| {
                let _ = s.set_nodelay(true);
                Stream::Tcp(s)
            }),
        }
    }
}

pub(super) enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    pub(super) fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }

    pub(super) fn shutdown(&self) {
        let _ = match self {
            Stream::Unix(s) => s.shutdown(Shutdown::Both),
            Stream::Tcp(s) => s.shutdown(Shutdown::Both),
        };
    }

    pub(super) fn into_fd(self) -> OwnedFd {
        match self {
            Stream::Unix(s) => s.into(),
            Stream::Tcp(s) => s.into(),
        }
    }
}

impl AsFd for Stream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Stream::Unix(s) => s.as_fd(),
            Stream::Tcp(s) => s.as_fd(),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.flush(),
            Stream::Tcp(s) => s.flush(),
        }
    }
}

/// The socket file we created, removed only while it is still ours.
pub(super) struct SocketFile {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl SocketFile {
    pub(super) fn remove(&self) {
        if let Ok(meta) = std::fs::symlink_metadata(&self.path)
            && meta.dev() == self.dev
            && meta.ino() == self.ino
        {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Binds a Unix socket at `path` (mode 0600), replacing only a stale socket.
pub(super) fn bind_unix(path: &Path) -> Result<(UnixListener, SocketFile), SessionError> {
    let shown = path.display();
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => match UnixStream::connect(path) {
            Ok(_) => {
                return Err(SessionError::new(
                    ErrorCode::InvalidOperation,
                    format!("{shown} is in use: another server is listening on it"),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                std::fs::remove_file(path)
                    .map_err(|e| SessionError::io(&format!("cannot replace {shown}"), e))?;
            }
            Err(e) => return Err(SessionError::io(&format!("cannot check {shown}"), e)),
        },
        Ok(_) => {
            return Err(SessionError::new(
                ErrorCode::InvalidOperation,
                format!("{shown} exists and is not a socket; refusing to replace it"),
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(SessionError::io(&format!("cannot check {shown}"), e)),
    }
    let listener = crate::session::paths::bind_private_socket(path)
        .map_err(|e| SessionError::io(&format!("cannot listen on unix:{shown}"), e))?;
    let file = std::fs::symlink_metadata(path)
        .map(|meta| SocketFile {
            path: path.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
        })
        .map_err(|e| SessionError::io(&format!("cannot check {shown}"), e))?;
    Ok((listener, file))
}
