// foiaflow reviewer desk: live step events on the case page (Server-Sent
// Events from the case's event stream; the browser resumes with
// Last-Event-ID by itself). No framework, no build step.
(function () {
  "use strict";
  var list = document.getElementById("steps");
  if (!list || !window.EventSource || !list.dataset.events) return;
  var status = document.getElementById("live-status");
  var src = new EventSource(list.dataset.events);
  function say(text) { if (status) status.textContent = text; }
  src.onopen = function () { say("Live: new steps appear as the worker commits them."); };
  src.onerror = function () { say("Live updates interrupted; reconnecting…"); };
  function add(ev) {
    var data;
    try { data = JSON.parse(ev.data); } catch (e) { return; }
    var li = document.createElement("li");
    li.className = "live";
    li.dataset.type = data.type || ev.type;
    var node = document.createElement("span");
    node.className = "node";
    node.textContent = data.step || data.type || ev.type;
    var msg = document.createElement("span");
    msg.textContent = (data.type && data.type !== "status" ? data.type + ": " : "") + (data.message || "");
    li.appendChild(node);
    li.appendChild(msg);
    list.appendChild(li);
    var empty = document.getElementById("steps-empty");
    if (empty) empty.remove();
    if (["parked", "sent", "escalated", "completed", "failed"].indexOf(data.type || ev.type) >= 0) {
      var note = document.getElementById("refresh-note");
      if (note) note.hidden = false;
    }
  }
  src.addEventListener("message", add);
})();
