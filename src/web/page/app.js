// The page of `shotty web`: the host's sessions, their screens live (SVG drawn by shotty),
// typing into one, scrubbing its recording, its finished commands. Everything comes from
// this server; the token travels in an HttpOnly cookie.
"use strict";

const state = { sessions: [], selected: null, live: true, versions: new Map() };
const $ = (id) => document.getElementById(id);

async function api(path, options) {
  const response = await fetch(path, { credentials: "same-origin", ...options });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
  return body;
}

function ago(iso) {
  if (!iso) return "";
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

async function loadSessions() {
  const { sessions } = await api("/api/sessions");
  state.sessions = sessions;
  const body = $("sessions").tBodies[0];
  body.replaceChildren();
  for (const s of sessions) {
    const row = body.insertRow();
    row.dataset.id = s.sessionId;
    if (s.sessionId === state.selected) row.className = "selected";
    cell(row, s.name || s.sessionId.slice(0, 10));
    cell(row, (s.command || []).join(" "));
    cell(row, s.exitCode != null ? `${s.state} (${s.exitCode})` : s.state, `state-${s.state}`);
    cell(row, `${s.width}×${s.height}`);
    cell(row, ago(s.updatedAt));
    const last = cell(row, "");
    last.dataset.lastCommand = s.sessionId;
    const thumb = document.createElement("img");
    thumb.className = "thumb";
    thumb.alt = "";
    thumb.dataset.screen = s.sessionId;
    thumb.src = screenUrl(s.sessionId);
    row.insertCell().append(thumb);
    row.addEventListener("click", () => select(s.sessionId));
    loadLastCommand(s.sessionId);
  }
  if (!state.selected && sessions.length) select(sessions[0].sessionId);
  else if (state.selected) refreshScreen();
}

function screenUrl(id) {
  return `/api/sessions/${id}/screen.svg?v=${state.versions.get(id) || 0}`;
}

// Failed scenario runs (`shotty test`), newest first, each document opened in a tab of its own.
async function loadReports() {
  let reports = [];
  try {
    ({ reports } = await api("/api/reports"));
  } catch (e) {
    return;
  }
  const list = $("reports");
  list.replaceChildren();
  for (const r of reports) {
    const item = document.createElement("li");
    item.append(`${r.name} (${new Date(r.modifiedMs).toLocaleString()}): `);
    for (const doc of r.documents) {
      const link = document.createElement("a");
      link.href = `/reports/${encodeURIComponent(r.name)}/${doc}`;
      link.target = "_blank";
      link.rel = "noopener";
      link.textContent = doc;
      item.append(link, " ");
    }
    list.append(item);
  }
  if (!reports.length) list.innerHTML = "<li>none</li>";
}

function refreshScreen() {
  if (!state.selected || !state.live) return;
  $("screen-img").src = `${screenUrl(state.selected)}&t=${Date.now()}`;
}

// The last finished command and its exit code, in the session's row.
async function loadLastCommand(id) {
  try {
    const { commands } = await api(`/api/sessions/${id}/commands`);
    showLastCommand(id, commands);
  } catch (e) {
    // A session without shell integration has none.
  }
}

function showLastCommand(id, commands) {
  const last = commands[commands.length - 1];
  const slot = document.querySelector(`[data-last-command="${id}"]`);
  if (!slot || !last) return;
  slot.textContent = `${last.text} → ${last.exitCode ?? "?"}`;
  slot.className = last.exitCode ? "exit-bad" : "";
}

async function loadCommands(id) {
  const body = $("commands").tBodies[0];
  body.replaceChildren();
  let commands = [];
  try {
    ({ commands } = await api(`/api/sessions/${id}/commands`));
  } catch (e) {
    return;
  }
  for (const c of commands) {
    const row = body.insertRow();
    cell(row, String(c.index));
    cell(row, c.text);
    cell(row, c.exitCode == null ? "" : String(c.exitCode), c.exitCode ? "exit-bad" : "");
    cell(row, c.durationMs == null ? "" : `${(c.durationMs / 1000).toFixed(2)} s`);
  }
  showLastCommand(id, commands);
}

async function loadRecording(id) {
  try {
    const { seconds } = await api(`/api/sessions/${id}/recording`);
    $("scrubber").max = String(seconds);
    $("scrubber").value = String(seconds);
  } catch (e) {
    $("scrubber").max = "0";
  }
}

function select(id) {
  typing.pending.length = 0;
  state.selected = id;
  state.live = true;
  for (const row of $("sessions").tBodies[0].rows) {
    row.className = row.dataset.id === id ? "selected" : "";
  }
  const s = state.sessions.find((x) => x.sessionId === id);
  $("detail").hidden = false;
  $("title").textContent = s ? `${s.name || s.sessionId} — ${(s.command || []).join(" ")}` : id;
  $("scrub-at").textContent = "live";
  refreshScreen();
  loadCommands(id);
  loadRecording(id);
}

const NAMED_KEYS = {
  Enter: "Enter", Backspace: "Backspace", Tab: "Tab", Escape: "Escape", Delete: "Delete",
  Insert: "Insert", Home: "Home", End: "End", PageUp: "PageUp", PageDown: "PageDown",
  ArrowUp: "Up", ArrowDown: "Down", ArrowLeft: "Left", ArrowRight: "Right",
};

// A key press as a step of the host's `send`, or null for one that is not for the program.
function step(event) {
  const mods = [event.ctrlKey && "Ctrl", event.altKey && "Alt", event.shiftKey && "Shift"].filter(Boolean);
  let name = NAMED_KEYS[event.key] || (/^F([1-9]|1[0-2])$/.test(event.key) ? event.key : null);
  if (name) return { keys: [...mods, name].join("+") };
  if (event.key.length !== 1) return null;
  if (event.ctrlKey || event.altKey) {
    return { keys: [...mods.filter((m) => m !== "Shift"), event.key.toLowerCase()].join("+") };
  }
  return { text: event.key };
}

// Keys go out in the order they were pressed: one send at a time, the keys pressed
// meanwhile together in the next (requests in flight at once may arrive in any order).
const typing = { pending: [], sending: false };

async function flushKeys() {
  if (typing.sending) return;
  typing.sending = true;
  while (typing.pending.length && state.selected) {
    const steps = typing.pending.splice(0);
    try {
      await api(`/api/sessions/${state.selected}/send`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ steps }),
      });
    } catch (e) {
      $("status").textContent = e.message;
    }
  }
  typing.sending = false;
}

function type(event) {
  if (event.ctrlKey && event.key === "]") {
    $("screen").blur();
    return;
  }
  const s = step(event);
  if (!s || !state.selected) return;
  event.preventDefault();
  typing.pending.push(s);
  flushKeys();
}

function scrub() {
  if (!state.selected) return;
  state.live = false;
  const at = Number($("scrubber").value);
  $("scrub-at").textContent = `${at.toFixed(2)} s`;
  $("screen-img").src = `/api/sessions/${state.selected}/recording.svg?at=${at}`;
}

function goLive() {
  state.live = true;
  $("scrub-at").textContent = "live";
  refreshScreen();
  if (state.selected) loadRecording(state.selected);
}

function listen() {
  const events = new EventSource("/api/events");
  events.onopen = () => { $("status").textContent = "live"; };
  events.onerror = () => { $("status").textContent = "reconnecting…"; };
  events.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "sessions" || event.type === "reload") {
      loadSessions();
      loadReports();
    } else if (event.type === "screen") {
      state.versions.set(event.sessionId, event.version);
      const thumb = document.querySelector(`img[data-screen="${event.sessionId}"]`);
      if (thumb) thumb.src = screenUrl(event.sessionId);
      if (event.sessionId === state.selected) {
        refreshScreen();
        loadCommands(event.sessionId);
      }
    }
  };
}

document.addEventListener("DOMContentLoaded", () => {
  $("screen").addEventListener("keydown", type);
  $("screen").addEventListener("click", () => $("screen").focus());
  $("scrubber").addEventListener("input", scrub);
  $("live-button").addEventListener("click", goLive);
  listen();
});
