//! Who may talk to `shotty web`: the token on every request, and requests that name the
//! server as their own (`Host`, `Origin`), against DNS rebinding and pages of other sites.

use std::net::SocketAddr;

/// The cookie that carries the token for the page once its URL has been opened.
pub const COOKIE: &str = "shotty_web";

/// Why a request is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No token, or a wrong one: 401.
    Unauthorized,
    /// A `Host` or `Origin` that is not this server's: 403.
    ForeignOrigin(String),
}

/// The token and the names this server answers to.
#[derive(Clone, Debug)]
pub struct Guard {
    token: String,
    /// `host:port` forms a request's `Host` may take, lowercase.
    hosts: Vec<String>,
}

impl Guard {
    /// A guard for a server listening on `listen` with `token`. A loopback server answers to
    /// `localhost` and its loopback addresses; any server to the address it listens on.
    pub fn new(token: String, listen: SocketAddr) -> Guard {
        let port = listen.port();
        let mut hosts = vec![authority(&listen)];
        if listen.ip().is_loopback() {
            for name in ["localhost", "127.0.0.1", "[::1]"] {
                hosts.push(format!("{name}:{port}"));
            }
        }
        hosts.sort();
        hosts.dedup();
        Guard { token, hosts }
    }

    /// The token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Checks a request's `Host` and `Origin` headers: the host must be one of the server's
    /// names, and an origin, when the browser sends one, `http://` and one of them too.
    pub fn check_origin(&self, host: Option<&str>, origin: Option<&str>) -> Result<(), Refusal> {
        let host = host.unwrap_or_default().to_ascii_lowercase();
        if !self.hosts.contains(&host) {
            return Err(Refusal::ForeignOrigin(format!(
                "Host {host:?} is not this server's"
            )));
        }
        if let Some(origin) = origin {
            let named = origin
                .strip_prefix("http://")
                .map(str::to_ascii_lowercase)
                .is_some_and(|o| self.hosts.contains(&o));
            if !named {
                return Err(Refusal::ForeignOrigin(format!(
                    "Origin {origin:?} is not this server's"
                )));
            }
        }
        Ok(())
    }

    /// Whether `candidate` is the token (compared in constant time).
    pub fn is_token(&self, candidate: &str) -> bool {
        let (a, b) = (self.token.as_bytes(), candidate.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// Checks the credentials of a request: `Authorization: Bearer TOKEN` or the page's
    /// cookie.
    pub fn check_token(
        &self,
        authorization: Option<&str>,
        cookie: Option<&str>,
    ) -> Result<(), Refusal> {
        let bearer = authorization.and_then(|a| a.strip_prefix("Bearer "));
        let from_cookie = cookie.and_then(|header| {
            header.split(';').find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                (name == COOKIE).then_some(value)
            })
        });
        match [bearer, from_cookie]
            .into_iter()
            .flatten()
            .any(|t| self.is_token(t))
        {
            true => Ok(()),
            false => Err(Refusal::Unauthorized),
        }
    }

    /// The `Set-Cookie` value that keeps the page signed in (this server only, no script
    /// access, never sent from another site's page).
    pub fn cookie(&self) -> String {
        format!("{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict", self.token)
    }
}

fn authority(addr: &SocketAddr) -> String {
    match addr {
        SocketAddr::V4(v4) => format!("{}:{}", v4.ip(), v4.port()),
        SocketAddr::V6(v6) => format!("[{}]:{}", v6.ip(), v6.port()),
    }
}

/// A fresh token: 32 random bytes as hex.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Reads a token file: private to its owner (0600 or stricter), one line of at least 32
/// characters, printable ASCII.
pub fn read_token_file(path: &std::path::Path) -> Result<String, String> {
    use std::os::unix::fs::MetadataExt;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "{shown} is readable by others (mode {:o}): chmod 600 it",
            meta.mode() & 0o777
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let token = text.trim();
    if token.len() < 32 || !token.bytes().all(|b| b.is_ascii_graphic()) || token.contains(';') {
        return Err(format!(
            "{shown}: the token must be one line of at least 32 printable ASCII characters without ';'"
        ));
    }
    Ok(token.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new("t".repeat(64), "127.0.0.1:7000".parse().unwrap())
    }

    #[test]
    fn hosts_and_origins_must_be_the_servers() {
        let g = guard();
        assert_eq!(g.check_origin(Some("127.0.0.1:7000"), None), Ok(()));
        assert_eq!(
            g.check_origin(Some("LOCALHOST:7000"), Some("http://localhost:7000")),
            Ok(())
        );
        // DNS rebinding: evil.example resolved to 127.0.0.1.
        assert!(g.check_origin(Some("evil.example:7000"), None).is_err());
        assert!(g.check_origin(None, None).is_err());
        assert!(g.check_origin(Some("127.0.0.1:7001"), None).is_err());
        assert!(
            g.check_origin(Some("127.0.0.1:7000"), Some("http://evil.example"))
                .is_err()
        );
        assert!(
            g.check_origin(Some("127.0.0.1:7000"), Some("https://127.0.0.1:7000"))
                .is_err()
        );
        assert!(
            g.check_origin(Some("127.0.0.1:7000"), Some("null"))
                .is_err()
        );
        let wide = Guard::new("x".repeat(40), "0.0.0.0:80".parse().unwrap());
        assert!(wide.check_origin(Some("localhost:80"), None).is_err());
    }

    #[test]
    fn the_token_comes_as_a_bearer_or_in_the_cookie() {
        let g = guard();
        let t = "t".repeat(64);
        assert_eq!(g.check_token(Some(&format!("Bearer {t}")), None), Ok(()));
        assert_eq!(
            g.check_token(None, Some(&format!("a=b; {COOKIE}={t}"))),
            Ok(())
        );
        assert_eq!(g.check_token(None, None), Err(Refusal::Unauthorized));
        assert_eq!(
            g.check_token(Some("Bearer nope"), Some("shotty_web=nope")),
            Err(Refusal::Unauthorized)
        );
        assert_eq!(g.check_token(Some(&t), None), Err(Refusal::Unauthorized));
        assert!(!g.is_token(&t[1..]));
    }
}
