//! Screen changes pushed to open pages (`/api/events`, server-sent events).
//!
//! While at least one page listens, one task lists the host's sessions every second, and
//! each running session has one thread blocked in the host's `wait` for a change of its
//! screen (`changed` after the version it last saw): a change reaches every page at once,
//! an idle session costs a sleeping thread, and once the last page has closed nothing is
//! asked of the host any more.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::session::client::{Client, reply_timeout, reply_timeout_after};

/// Events kept for a page that reads slowly; one that falls further behind is told to reload.
const BACKLOG: usize = 1024;
/// How often the list of sessions is read while a page listens.
const LIST_EVERY: Duration = Duration::from_secs(1);
/// How long one `wait` for a change lasts before it is asked again (so that a watcher
/// notices within this time that no page listens any more).
const WAIT_MS: u64 = 20_000;

/// The event hub.
pub struct Live {
    events: broadcast::Sender<String>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    listing: bool,
    watched: HashSet<String>,
}

impl Live {
    pub fn new() -> Arc<Live> {
        let (events, _) = broadcast::channel(BACKLOG);
        Arc::new(Live {
            events,
            state: Mutex::new(State::default()),
        })
    }

    /// A page's subscription; starts the lister if it is not running.
    pub fn subscribe(self: &Arc<Self>) -> broadcast::Receiver<String> {
        let receiver = self.events.subscribe();
        let mut state = self.lock();
        if !state.listing {
            state.listing = true;
            let live = Arc::clone(self);
            tokio::spawn(async move { live.list_while_watched().await });
        }
        receiver
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn listened(&self) -> bool {
        self.events.receiver_count() > 0
    }

    fn publish(&self, event: Value) {
        // No page listening is not an error: the event had nobody to reach.
        let _ = self.events.send(event.to_string());
    }

    async fn list_while_watched(self: Arc<Self>) {
        let mut last = String::new();
        loop {
            if !self.listened() {
                // Decided under the lock `subscribe` takes: a page that subscribed since the
                // check above is seen here, or sees `listing` false and starts a lister.
                let mut state = self.lock();
                if !self.listened() {
                    state.listing = false;
                    return;
                }
            }
            let listed = tokio::task::spawn_blocking(|| {
                Client::connect()?.call("list", &json!({ "all": true }), reply_timeout("list"))
            })
            .await;
            if let Ok(Ok(reply)) = listed {
                let sessions = reply["sessions"].as_array().cloned().unwrap_or_default();
                // Pages reload the list when what it shows changed.
                let summary: Vec<Value> = sessions
                    .iter()
                    .map(|s| {
                        json!([
                            s["sessionId"],
                            s["state"],
                            s["title"],
                            s["width"],
                            s["height"]
                        ])
                    })
                    .collect();
                let summary = Value::from(summary).to_string();
                if summary != last {
                    self.publish(json!({ "type": "sessions" }));
                    last = summary;
                }
                for s in &sessions {
                    if let (Some(id), Some("running")) =
                        (s["sessionId"].as_str(), s["state"].as_str())
                    {
                        self.watch(id);
                    }
                }
            }
            tokio::time::sleep(LIST_EVERY).await;
        }
    }

    /// Starts the thread that waits for changes of `id`'s screen, unless it runs.
    fn watch(self: &Arc<Self>, id: &str) {
        if !self.lock().watched.insert(id.to_owned()) {
            return;
        }
        let live = Arc::clone(self);
        let id = id.to_owned();
        let spawned = std::thread::Builder::new()
            .name("shotty-web-watch".into())
            .spawn({
                let id = id.clone();
                move || live.watch_until_unwatched(&id)
            });
        if spawned.is_err() {
            self.lock().watched.remove(&id);
        }
    }

    fn watch_until_unwatched(&self, id: &str) {
        let mut since: Option<u64> = None;
        while self.listened() {
            let mut params = json!({ "sessionId": id, "changed": true, "timeoutMs": WAIT_MS });
            if let Some(v) = since {
                params["since"] = json!(v);
            }
            let reply = Client::connect().and_then(|mut c| {
                let timeout = reply_timeout_after("wait", Duration::from_millis(WAIT_MS));
                c.call("wait", &params, timeout)
            });
            let Ok(reply) = reply else { break };
            if let Some(version) = reply["version"].as_u64() {
                since = Some(version);
            }
            match reply["result"].as_str() {
                Some("matched") => self.publish(json!({
                    "type": "screen", "sessionId": id, "version": since,
                })),
                Some("timeout") => {}
                // Ended, stopped, gone: the list tells the page.
                _ => break,
            }
        }
        self.lock().watched.remove(id);
    }
}
