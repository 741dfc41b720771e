"use strict";
(function () {
  var filters = document.querySelectorAll("[data-filter]");
  function show(filter) {
    document.querySelectorAll("[data-case]").forEach(function (el) {
      el.hidden = !(filter === "all" || el.getAttribute("data-" + filter) === "true");
    });
    filters.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-filter") === filter)); });
  }
  filters.forEach(function (b) { b.addEventListener("click", function () { show(b.getAttribute("data-filter")); }); });
  document.querySelectorAll("[data-runs]").forEach(function (b) {
    b.addEventListener("click", function () {
      var open = b.getAttribute("data-runs") === "open";
      document.querySelectorAll("details.case, details.run").forEach(function (d) {
        if (!d.hidden) { d.open = open; }
      });
    });
  });
  function openTarget() {
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "DETAILS") { target.hidden = false; target.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
