/**
 * The run page's one script, served as /console/run.js: it follows a running run over the
 * console's WebSocket, appends the output as it is kept and shows the state as it changes;
 * when the run ends the page is loaded again. Without it the page shows what was kept when it
 * was loaded. Output is set as text, never as markup.
 */
export const RUN_SCRIPT = `"use strict";
(function () {
  var log = document.getElementById("run-log");
  var state = document.getElementById("run-live");
  if (!log || !state || log.getAttribute("data-live") !== "true" || !window.WebSocket) return;
  var scheme = location.protocol === "https:" ? "wss:" : "ws:";
  var ws = new WebSocket(scheme + "//" + location.host + log.getAttribute("data-stream"));
  var attempt = null;
  var fresh = true;
  ws.onopen = function () { state.textContent = "Following live."; };
  ws.onmessage = function (e) {
    var m = JSON.parse(e.data);
    if (m.type === "run") {
      state.textContent = "Following live: " + m.run.status.replace(/_/g, " ") + ", attempt " + m.run.attempt + ".";
    } else if (m.type === "output") {
      // The stream sends the attempt's output from its start: it replaces what the page was served with.
      if (fresh) { log.textContent = ""; fresh = false; }
      if (attempt !== null && m.attempt !== attempt) log.appendChild(document.createTextNode("\\n--- attempt " + m.attempt + " ---\\n"));
      attempt = m.attempt;
      var atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      log.appendChild(document.createTextNode(m.text));
      if (atEnd) log.scrollTop = log.scrollHeight;
    } else if (m.type === "end") {
      state.textContent = "The run ended (" + m.status.replace(/_/g, " ") + ").";
      location.reload();
    }
  };
  ws.onclose = function (e) { if (e.code !== 1000) state.textContent = "Live view closed; reload the page to see more."; };
})();
`;
