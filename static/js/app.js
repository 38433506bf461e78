/* Progressive enhancement for the deal entry: the page works without this file.
   - steppers: the minus and plus buttons change their number field;
   - marking a side as gone out fills in the books the rules require (still editable);
   - every change tells htmx to refresh the live preview. */
(function () {
  "use strict";
  document.documentElement.classList.remove("no-js");
  document.documentElement.classList.add("js");

  function changed(input) {
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.step");
    if (!button) return;
    var input = document.getElementById(button.getAttribute("aria-controls"));
    if (!input) return;
    var value = parseInt(input.value, 10);
    if (isNaN(value)) value = 0;
    value = Math.max(0, value + parseInt(button.dataset.step, 10));
    input.value = value === 0 ? "" : String(value);
    changed(input);
  });

  document.addEventListener("change", function (event) {
    var radio = event.target;
    if (radio.name !== "went_out" || !radio.checked || radio.value === "") return;
    var form = radio.form;
    var requires = JSON.parse(form.dataset.requires || "{}");
    Object.keys(requires).forEach(function (kind) {
      var input = form.elements["sides-" + radio.value + "-books_" + kind];
      if (!input) return;
      var have = parseInt(input.value, 10) || 0;
      if (have < requires[kind]) {
        input.value = String(requires[kind]);
        changed(input);
      }
    });
  });
})();
