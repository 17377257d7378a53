// The console's one script. Every page works without it (the server
// renders everything); it adds what a page cannot do by itself.
"use strict";

// Live parts: an element with data-live="URL" has its content (a
// table: its rows) replaced by the fragment at URL every data-every
// seconds, while the tab is shown and the operator has not paused it (the
// button data-pause names). The fragment is the console's own
// server-rendered, escaped HTML, fetched from the console only (the
// page's Content-Security-Policy says so).
function live(table) {
  const every = (Number(table.dataset.every) || 5) * 1000;
  const status = document.getElementById(table.dataset.status);
  const button = document.getElementById(table.dataset.pause);
  let paused = false, stopped = false, timer = 0;

  const say = (text) => { if (status) status.textContent = text; };
  const schedule = () => {
    clearTimeout(timer);
    if (!paused && !stopped && document.visibilityState === "visible") timer = setTimeout(refresh, every);
  };
  async function refresh() {
    let res;
    try {
      // A redirect means the session ended (to the sign-in page): stop.
      res = await fetch(table.dataset.live, { credentials: "same-origin", redirect: "error" });
    } catch (e) {
      stopped = true;
      say("Live updates stopped: the console did not answer, or your session ended. Reload the page.");
      return;
    }
    if (!res.ok) {
      stopped = true;
      say("Live updates stopped: " + (await res.text()) + " Reload the page.");
      return;
    }
    const tpl = document.createElement("template");
    tpl.innerHTML = await res.text();
    if (table.tagName !== "TABLE") {
      table.replaceChildren(tpl.content);
    } else {
      const rows = tpl.content.querySelector("tbody");
      if (rows && table.tBodies[0]) table.tBodies[0].replaceWith(rows);
    }
    localTimes(table);
    say("Updated at " + new Date().toLocaleTimeString() + ", every " + every / 1000 + " s while this tab is shown.");
    schedule();
  }
  say("Refreshes every " + every / 1000 + " s while this tab is shown.");
  if (button) {
    button.hidden = false;
    button.addEventListener("click", () => {
      paused = !paused;
      button.setAttribute("aria-pressed", String(paused));
      button.textContent = paused ? "Resume updates" : "Pause updates";
      say(paused ? "Live updates paused." : "Live updates resumed.");
      if (!paused) refresh(); else schedule();
    });
  }
  document.addEventListener("visibilitychange", () => {
    // Back to a tab hidden for a while: refresh at once.
    if (document.visibilityState === "visible" && !paused && !stopped) refresh(); else schedule();
  });
  schedule();
}

// Times: the server writes each <time> in UTC, with the UTC time in its
// title; here its text becomes the operator's zone (named), and hovering
// still shows UTC.
const localFormat = new Intl.DateTimeFormat(undefined, {
  year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
});
function localTimes(root) {
  for (const el of root.querySelectorAll("time[datetime]")) {
    const at = new Date(el.getAttribute("datetime"));
    if (el.dataset.local || isNaN(at)) continue;
    if (!el.title) el.title = el.textContent;
    el.textContent = localFormat.format(at);
    el.dataset.local = "1";
  }
}
localTimes(document);

for (const el of document.querySelectorAll("[data-live]")) live(el);
