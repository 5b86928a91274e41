//! Images of a session's screen, rendered client-side from the host's `snapshot`: shared by
//! `shotty session capture|inspect` and the MCP server.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::client::{Client, REPLY_TIMEOUT};
use super::error::{ErrorCode, SessionError};
use super::paths;
use super::protocol::IdParams;
use crate::recording::Timeline;
use crate::recording::asciicast::{self, CastInfo};
use crate::recording::frames::Timing;
use crate::render::animation::{AnimationFormat, animate, animate_cast};
use crate::render::{Appearance, Format, encode};

/// A session's screen as the host's `snapshot` method returns it.
pub struct Fetched {
    /// The screen.
    pub snapshot: crate::term::Snapshot,
    /// The terminal's title, if it has one.
    pub title: Option<String>,
    /// The whole reply (status fields, `title`, `snapshot`).
    pub reply: Value,
}

/// Fetches a session's snapshot through `client`.
pub fn fetch(mut client: Client, id: &str) -> Result<Fetched, SessionError> {
    let params = IdParams {
        session_id: id.to_owned(),
    };
    let reply = client.call("snapshot", &params, Some(REPLY_TIMEOUT))?;
    let snapshot = serde_json::from_value(reply["snapshot"].clone())
        .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
    let title = reply["title"].as_str().map(str::to_owned);
    Ok(Fetched {
        snapshot,
        title,
        reply,
    })
}

/// Encodes a fetched snapshot.
pub fn render(
    fetched: &Fetched,
    format: Format,
    appearance: &Appearance,
) -> Result<Vec<u8>, SessionError> {
    encode(&fetched.snapshot, format, appearance)
        .map_err(|e| SessionError::invalid_request(e.to_string()))
}

/// Fetches the session's snapshot through `client` and renders it. `appearance` builds the
/// look from the terminal's title (`None` when it has none). Returns the encoded bytes and
/// the host's `snapshot` reply.
pub fn render_to(
    client: Client,
    id: &str,
    format: Format,
    appearance: impl FnOnce(Option<String>) -> Result<Appearance, String>,
) -> Result<(Vec<u8>, Value), SessionError> {
    let fetched = fetch(client, id)?;
    let appearance = appearance(fetched.title.clone()).map_err(SessionError::invalid_request)?;
    let bytes = render(&fetched, format, &appearance)?;
    Ok((bytes, fetched.reply))
}

/// Fetches a session's recording as asciicast v2: the host writes it to a private temporary
/// file (the host writes files, the caller reads them), which is read and removed. Returns the
/// bytes and the host's `export` reply.
pub fn recording(mut client: Client, id: &str) -> Result<(Vec<u8>, Value), SessionError> {
    let dir = tempfile::tempdir()
        .map_err(|e| SessionError::io("cannot make a temporary directory", e))?;
    let path = dir.path().join("export.cast");
    let params = super::protocol::ExportParams {
        session_id: id.to_owned(),
        path: path.clone(),
    };
    let reply = client.call("export", &params, super::client::reply_timeout("export"))?;
    let bytes = std::fs::read(&path)
        .map_err(|e| SessionError::io("cannot read the exported recording", e))?;
    Ok((bytes, reply))
}

/// A session's recording as a file's bytes: asciicast v2 when `animation` is `None`, else
/// animated in that format, timing and look. The host's `export` reply gets the `format`.
pub fn export(
    client: Client,
    id: &str,
    animation: Option<(AnimationFormat, Timing, &Appearance)>,
) -> Result<(Vec<u8>, Value), SessionError> {
    let (cast, mut reply) = recording(client, id)?;
    reply["format"] = Value::from(
        animation
            .as_ref()
            .map_or("cast", |(format, ..)| format.name()),
    );
    let Some((format, timing, appearance)) = animation else {
        return Ok((cast, reply));
    };
    let bytes = animate_cast(cast.as_slice(), (None, None), timing, format, appearance)
        .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))?;
    Ok((bytes, reply))
}

/// A timeline as a file's bytes: asciicast v2 (with `info`) when `animation` is `None`, else
/// animated in that format, timing and look.
pub fn timeline_file(
    timeline: &Timeline,
    info: &CastInfo,
    animation: Option<(AnimationFormat, Timing, &Appearance)>,
) -> Result<Vec<u8>, SessionError> {
    match animation {
        None => {
            let mut cast = Vec::new();
            asciicast::write_v2(timeline, info, &mut cast)
                .map_err(|e| SessionError::io("cannot write the recording", e))?;
            Ok(cast)
        }
        Some((format, timing, appearance)) => {
            animate(&mut timeline.frames(timing), format, appearance)
                .map_err(|e| SessionError::new(ErrorCode::SessionError, e.to_string()))
        }
    }
}

/// The format a recording is exported in by the name of its file: `None` (asciicast) for
/// `.cast`, else the animated format of `.svg`, `.gif` or `.apng`.
pub fn export_format(path: &Path) -> Result<Option<AnimationFormat>, String> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cast"))
    {
        return Ok(None);
    }
    AnimationFormat::from_path(path).map(Some).ok_or_else(|| {
        format!(
            "cannot tell the format of {} from its extension; use .cast, .svg, .gif, .apng, .mp4 or --format",
            path.display()
        )
    })
}

/// The mode of a new file the user names: an ordinary one.
pub const NEW_FILE_MODE: u32 = 0o644;
/// The mode of a new file holding a session's recording: what was typed is in it, passwords
/// too, so it is the user's alone.
pub const NEW_RECORDING_MODE: u32 = 0o600;

/// How a file the user names is written (see [`write_file`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Destination {
    /// Not a regular file (`/dev/null`, `/dev/stdout`, a FIFO): written to in place, never
    /// replaced ([`write_in_place`]).
    InPlace,
    /// Replaced whole by a file of `mode` renamed over `target`: the path itself, or the file
    /// its symlink points to (the link stays). A new file gets the mode asked for; a replaced
    /// one keeps its own.
    Replace {
        /// The file renamed over.
        target: PathBuf,
        /// The new file's mode.
        mode: u32,
    },
}

/// How writing `path` goes, a new file getting `new_mode`; an error (`cannot write PATH: …`)
/// for a directory, or a symlink that cannot be followed.
pub fn destination(path: &Path, new_mode: u32) -> Result<Destination, String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(fail(&"it is a directory")),
        Ok(meta) if !meta.is_file() => return Ok(Destination::InPlace),
        _ => {}
    }
    let target = if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::canonicalize(path).map_err(|e| fail(&e))?
    } else {
        path.to_owned()
    };
    let mode = std::fs::metadata(&target).map_or(new_mode, |m| m.permissions().mode() & 0o777);
    Ok(Destination::Replace { target, mode })
}

/// Writes `bytes` into `path`, a file that is not a regular one ([`Destination::InPlace`]).
pub fn write_in_place(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes `bytes` to `path` whole or not at all ([`whole_file`](super::whole_file)), so a
/// failure, even a killed writer, never leaves half a file; where it lands and with which
/// mode is [`destination`]'s, a new file an ordinary one ([`NEW_FILE_MODE`]).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_file_new_as(path, bytes, NEW_FILE_MODE)
}

/// [`write_file`] for a session's recording (a cast, or an animation of it): a new file is
/// the user's alone ([`NEW_RECORDING_MODE`]).
pub fn write_recording(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_file_new_as(path, bytes, NEW_RECORDING_MODE)
}

fn write_file_new_as(path: &Path, bytes: &[u8], new_mode: u32) -> Result<(), String> {
    match destination(path, new_mode)? {
        Destination::InPlace => write_in_place(path, bytes),
        Destination::Replace { target, mode } => {
            super::whole_file::replace(&target, bytes, mode, false)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
    }
}

/// [`write_file`], creating the file's directory first if it does not exist: for files whose
/// place the user names (captures, goldens and what a failed comparison leaves beside them).
pub fn write_file_creating_dir(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    write_file(path, bytes)
}

/// Where the inspect images of session `id` are kept, in the state directory `state_dir`:
/// deleted with the session's other files (by `stop`, or when its retention runs out).
pub fn inspect_dir(state_dir: &Path, id: &str) -> PathBuf {
    state_dir.join("inspect").join(id)
}

/// Writes an inspect image of the session a host's `snapshot` reply (`fetched`) is from, to
/// `<state dir>/inspect/<session id>/inspect-<random>.<ext>` (directories 0700, file 0600):
/// private, and gone with the session, as everything else of it.
pub fn inspect_file(
    fetched: &Value,
    bytes: &[u8],
    format: Format,
) -> Result<PathBuf, SessionError> {
    // The host's id, not what the caller named the session by: it becomes a directory name.
    let id = fetched["sessionId"]
        .as_str()
        .filter(|id| super::protocol::is_session_id(id))
        .ok_or_else(|| {
            SessionError::new(
                ErrorCode::SessionError,
                "the host's reply names no session id",
            )
        })?;
    let state_dir = paths::state_dir();
    paths::ensure_private_dir(&state_dir.join("inspect"))?;
    let dir = inspect_dir(&state_dir, id);
    paths::ensure_private_dir(&dir)?;
    let file = tempfile::Builder::new()
        .prefix("inspect-")
        .suffix(&format!(".{}", format.name()))
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(&dir)
        .map_err(|e| SessionError::io("cannot create the inspect image", e))?;
    let (mut file, path) = file
        .keep()
        .map_err(|e| SessionError::io("cannot keep the inspect image", e.error))?;
    file.write_all(bytes)
        .map_err(|e| SessionError::io("cannot write the inspect image", e))?;
    Ok(path)
}
