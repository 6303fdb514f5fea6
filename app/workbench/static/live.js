// The pit page (/ui/live) with script: follows the workbench's stream of alerts (Server-Sent Events, the login
// session's cookie) and puts each new alert, as the server rendered it, at the top of the list. Without script the
// page reloads itself (a meta refresh inside <noscript>).
(function () {
  "use strict";
  var list = document.getElementById("alerts");
  if (!list || !window.EventSource) {
    return;
  }
  var none = document.getElementById("alerts-none");
  var mode = document.getElementById("pit-mode");
  // The stream goes on from where the page was read (?head=); on a reconnection EventSource sends the last alert's
  // id (Last-Event-ID), and the stream goes on from there.
  var url = list.getAttribute("data-stream");
  function say(text, state) {
    if (mode) {
      mode.textContent = text;
      mode.setAttribute("data-mode", state);
    }
  }
  var stream = new EventSource(url);
  stream.addEventListener("open", function () {
    say("Following live: new findings appear at the top.", "stream");
  });
  stream.addEventListener("error", function () {
    say("The live stream was interrupted; reconnecting\u2026", "reconnecting");
  });
  stream.addEventListener("finding", function (e) {
    var alert = JSON.parse(e.data);
    if (document.getElementById("alert-" + alert.id)) {
      return;
    }
    var holder = document.createElement("template");
    holder.innerHTML = alert.html;
    var item = holder.content.firstElementChild;
    if (item) {
      list.insertBefore(item, list.firstChild);
      if (none) {
        none.hidden = true;
      }
    }
  });
})();
