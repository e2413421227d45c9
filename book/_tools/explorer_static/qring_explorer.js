/* Explorers of the qring_edu book (book/_tools/explorer.py writes their HTML).
 * Each <div class="qring-explorer"> holds native controls over a grid of settings and the
 * picture of every setting, rendered by the library when the book was built. Moving a control
 * shows the picture of the chosen setting. Plain JavaScript, no network: works from file://.
 * A setting that has no picture (a slider whose range follows another control, like the ring's
 * step after P) is avoided: a range control only reaches the values that have one, and moving
 * another control picks the nearest setting that has a picture. */
(function () {
  "use strict";

  function setup(root) {
    var data = JSON.parse(root.getAttribute("data-qring-states"));
    var controls = data.controls, states = data.states;
    var inputs = controls.map(function (_, k) {
      return root.querySelector('[data-control="' + k + '"]');
    });
    var img = root.querySelector("img.qring-explorer-image");
    var title = root.querySelector(".qring-explorer-title").textContent;
    var settingText = root.querySelector(".qring-explorer-setting span");
    var fixedText = root.querySelector(".qring-explorer-fixed span");
    var keys = Object.keys(states).map(function (k) { return k.split(",").map(Number); });

    function current() { return inputs.map(function (el) { return parseInt(el.value, 10); }); }

    function nearest(idx, moved) {
      var best = null, bestDistance = Infinity;
      keys.forEach(function (key) {
        if (key[moved] !== idx[moved]) return;
        var d = 0;
        for (var i = 0; i < key.length; i++) d += Math.abs(key[i] - idx[i]);
        if (d < bestDistance) { bestDistance = d; best = key; }
      });
      return best;
    }

    function show(idx) {
      // the reachable values of each range, with the other controls where they are
      inputs.forEach(function (el, k) {
        if (el.type !== "range") return;
        var lo = Infinity, hi = -Infinity;
        keys.forEach(function (key) {
          for (var i = 0; i < key.length; i++) if (i !== k && key[i] !== idx[i]) return;
          lo = Math.min(lo, key[k]); hi = Math.max(hi, key[k]);
        });
        el.min = String(lo); el.max = String(hi);
      });
      inputs.forEach(function (el, k) {
        el.value = String(idx[k]);
        var label = controls[k].labels[idx[k]];
        if (el.type === "range") {
          el.setAttribute("aria-valuetext", label);
          var out = root.querySelector('output[for="' + el.id + '"]');
          if (out) out.textContent = label;
        }
      });
      var state = states[idx.join(",")];
      var text = controls.map(function (c, k) { return c.label + " = " + c.labels[idx[k]]; })
                         .join("; ");
      img.src = data.prefix + state.id + ".png";
      img.setAttribute("data-state", state.id);
      img.alt = title + ": " + text;   // the title may itself hold ": " (TieAudit: ...)
      settingText.textContent = text;
      if (fixedText) fixedText.textContent = state.fixed;
    }

    function changed(moved) {
      var idx = current();
      if (!states[idx.join(",")]) idx = nearest(idx, moved) || idx;
      if (states[idx.join(",")]) show(idx);
    }

    inputs.forEach(function (el, k) {
      el.addEventListener("input", function () { changed(k); });
      el.addEventListener("change", function () { changed(k); });
    });
    show(current());
  }

  function init() {
    var roots = document.querySelectorAll("div.qring-explorer[data-qring-states]");
    for (var i = 0; i < roots.length; i++) setup(roots[i]);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
