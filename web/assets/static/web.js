// untether's web view: no third-party code. Three jobs, each only on the
// page that has its element.
"use strict";
(function () {
  // The sign-in page posts its one-time token back to this origin, so the
  // session cookie is set by a same-site request (see web/pages.go).
  var login = document.getElementById("login");
  if (login) { login.submit(); return; }

  // The Mini App: Telegram puts its signed launch data in the fragment,
  // which never reaches a server by itself; post it to be checked.
  var app = document.getElementById("app");
  if (app) {
    var frag = new URLSearchParams(location.hash.slice(1));
    var data = frag.get("tgWebAppData");
    var status = document.getElementById("app-status");
    if (!data) { status.textContent = "Not allowed: open this page from the bot's button in Telegram."; return; }
    fetch("/app", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ initData: data }).toString() })
      .then(function (r) {
        if (r.ok) { location.replace("/"); return; }
        status.textContent = r.status === 429 ? "Too many sign-in attempts. Wait a minute." : "Not allowed: this Telegram account may not use this bot.";
      })
      .catch(function () { status.textContent = "Could not reach the bot."; });
    return;
  }

  // A chat page: the live part is re-rendered by the server after each
  // event of the conversation (server-sent events); the HTML is the
  // server's own template output, every value escaped there.
  var live = document.getElementById("live");
  if (live && window.EventSource) {
    var es = new EventSource(live.dataset.events);
    es.onmessage = function (e) { live.innerHTML = e.data; };
  }
})();
