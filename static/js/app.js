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

/* Nothing typed is lost on a reload or a dropped connection: the deal form's numbers are
   kept in this phone's storage until the deal is saved. The key names the match, the deal
   and (for a correction) its version, so a stored draft never lands on another deal. */
(function () {
  "use strict";
  var PREFIX = "scorekeeper:draft:";
  var DAY = 24 * 60 * 60 * 1000;

  function storage() {
    try { return window.localStorage; } catch (e) { return null; }
  }

  function keyOf(form) {
    var guard = form.elements.version && form.elements.version.value
      ? "v" + form.elements.version.value
      : "d" + (form.elements.expected_deal ? form.elements.expected_deal.value : "");
    return PREFIX + form.getAttribute("action") + ":" + guard;
  }

  function fields(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return el.name && el.name.indexOf("sides-") === 0 || el.name === "went_out";
    });
  }

  function save(form) {
    var store = storage();
    if (!store) return;
    var values = {};
    fields(form).forEach(function (el) {
      if (el.type === "radio") { if (el.checked) values[el.name] = el.value; }
      else if (el.value !== "") values[el.name] = el.value;
    });
    store.setItem(keyOf(form), JSON.stringify({ at: Date.now(), values: values }));
  }

  function restore(form) {
    var store = storage();
    if (!store) return;
    var raw = store.getItem(keyOf(form));
    if (!raw) return;
    var draft;
    try { draft = JSON.parse(raw); } catch (e) { store.removeItem(keyOf(form)); return; }
    var typed = fields(form).some(function (el) { return el.type !== "radio" && el.value !== ""; });
    if (typed || !draft.values) return;  // the server's own values win (errors, corrections)
    fields(form).forEach(function (el) {
      if (!(el.name in draft.values)) return;
      if (el.type === "radio") el.checked = el.value === draft.values[el.name];
      else el.value = draft.values[el.name];
    });
    var note = document.createElement("p");
    note.className = "flash";
    note.setAttribute("role", "status");
    note.textContent = form.dataset.restoredText || "Restored what you typed before.";
    form.insertBefore(note, form.querySelector("fieldset"));
    // Refresh the preview (an input event: a change of the went-out radio would refill books).
    var count = fields(form).filter(function (el) { return el.type !== "radio"; })[0];
    if (count) count.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function forget(form) {
    var store = storage();
    if (store) store.removeItem(keyOf(form));
  }

  function tidy() {
    var store = storage();
    if (!store) return;
    for (var i = store.length - 1; i >= 0; i--) {
      var key = store.key(i);
      if (key && key.indexOf(PREFIX) === 0) {
        try { if (Date.now() - JSON.parse(store.getItem(key)).at > DAY) store.removeItem(key); }
        catch (e) { store.removeItem(key); }
      }
    }
  }

  function setUp(root) {
    var form = root.querySelector("#deal-entry");
    if (form && !form.dataset.draftReady) {
      form.dataset.draftReady = "1";
      restore(form);
    }
  }

  document.addEventListener("input", function (event) {
    var form = event.target.form;
    if (form && form.id === "deal-entry") save(form);
  });
  document.addEventListener("change", function (event) {
    var form = event.target.form;
    if (form && form.id === "deal-entry") save(form);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (form && form.id === "deal-entry" && event.detail.successful) forget(form);
  });
  document.addEventListener("submit", function (event) {
    // A plain submit (a correction) leaves the page; a stale draft of it can never match
    // again, because a saved correction bumps the deal's version.
    if (event.target.id === "deal-entry") save(event.target);
  });
  document.addEventListener("htmx:afterSettle", function () { setUp(document); });
  document.addEventListener("DOMContentLoaded", function () { tidy(); setUp(document); });
})();

/* The history's times arrive in UTC (<time datetime="...Z">21:14 UTC</time>); show them in
   this phone's own time zone, with the day when it is not today. Without this file the UTC
   text stays, which is still right. */
(function () {
  "use strict";

  function sameDay(a, b) {
    return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() &&
      a.getDate() === b.getDate();
  }

  function localise(root) {
    var lang = document.documentElement.lang || undefined;
    var now = new Date();
    Array.prototype.forEach.call(root.querySelectorAll("time[data-local]"), function (el) {
      if (el.dataset.localised) return;
      var at = new Date(el.getAttribute("datetime"));
      if (isNaN(at.getTime())) return;
      var options = { hour: "2-digit", minute: "2-digit" };
      if (!sameDay(at, now)) {
        options.day = "numeric";
        options.month = "short";
        if (at.getFullYear() !== now.getFullYear()) options.year = "numeric";
      }
      try {
        el.textContent = at.toLocaleString(lang, options);
      } catch (e) {
        return;  // an unknown language tag: keep the UTC text
      }
      el.dataset.localised = "1";
    });
  }

  document.addEventListener("DOMContentLoaded", function () { localise(document); });
  document.addEventListener("htmx:afterSettle", function () { localise(document); });
})();

/* Feedback where the eye is. After a deal is sent, the server marks #match with
   data-outcome: "saved" -> the new deal's sheet comes into view under the (sticky) new
   totals and focus goes to its first control; "refused" -> the view moves to the first
   error (each names its side) and focus to its field. The #announce live region, outside
   #match, says the same aloud. */
(function () {
  "use strict";

  function firstControl(form) {
    return form.querySelector("input[name=went_out]:checked") ||
      form.querySelector("input:not([type=hidden]), button, select");
  }

  function firstError(root) {
    var invalid = root.querySelector("#deal-entry [aria-invalid=true]");
    if (invalid) return { focus: invalid, show: invalid.closest(".sheet-row") || invalid };
    var general = root.querySelector("#deal-entry .errors.general, #deal-entry .errors");
    if (general) {
      var form = general.closest("form");
      return { focus: form ? firstControl(form) : null, show: general };
    }
    return null;
  }

  function react(root) {
    var match = root.querySelector("#match[data-outcome]");
    if (!match) return;
    var outcome = match.dataset.outcome;
    match.removeAttribute("data-outcome");
    var form = match.querySelector("#deal-entry");
    if (outcome === "saved") {
      if (form) {
        form.scrollIntoView({ block: "start" });
        var control = firstControl(form);
        if (control) control.focus({ preventScroll: true });
      } else {
        match.scrollIntoView({ block: "start" });  // the match is over: the result
      }
    } else if (outcome === "refused") {
      var error = firstError(match);
      if (!error) return;
      error.show.scrollIntoView({ block: "center" });
      if (error.focus) error.focus.focus({ preventScroll: true });
    }
  }

  document.addEventListener("htmx:afterSettle", function () { react(document); });
  document.addEventListener("DOMContentLoaded", function () { react(document); });
})();

/* A preview must never land after its deal was saved (its going-out checklists, swapped
   out of band, would show the saved deal's books on the next deal's sheet): while the
   deal form is being sent, no preview starts, and a preview answering for a sheet that
   is gone is dropped. */
(function () {
  "use strict";
  var sending = false;

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.id === "deal-entry") sending = true;
    else if (elt && elt.id === "preview" && sending) event.preventDefault();
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.id === "deal-entry") sending = false;
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.id === "preview" && (sending || !document.body.contains(elt))) {
      event.detail.shouldSwap = false;
    }
  });
})();

/* Who deals first: each seat's option shows its player's name as soon as it is typed
   (the server does the same when it shows the form again). */
(function () {
  "use strict";
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input.id || !input.form) return;
    var options = input.form.querySelectorAll("option[data-name-from='" + input.id + "']");
    Array.prototype.forEach.call(options, function (option) {
      option.textContent = input.value.trim() || option.dataset.seat;
    });
  });
})();
