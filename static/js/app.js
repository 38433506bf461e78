/* Progressive enhancement for the deal entry: the page works without this file.
   - steppers: the minus and plus buttons change their number field;
   - marking a side as gone out fills in the books the rules require (still editable);
   - every change tells htmx to refresh the live preview. */
(function () {
  "use strict";
  document.documentElement.classList.remove("no-js");
  document.documentElement.classList.add("js");
  // htmx carries an element's style attribute over a swap by default (setAttribute): the
  // CSP refuses that, loudly, whenever something (the CSSOM, an extension) gave one a style.
  if (window.htmx) window.htmx.config.attributesToSettle = ["class", "width", "height"];

  function changed(input) {
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /* The −/+ buttons of each stepper of a form that names them (data-step-less/-more):
     made here, since they work only with this script; named "− one less: <row>, <side>"
     from the labels the number field is labelled by. Out of the Tab order: a keyboard
     types the number, or steps it with the arrow keys, so a stepper is one stop, not 3. */
  function addSteps(root) {
    if (!root || !root.querySelectorAll) return;
    root.querySelectorAll(".stepper-controls > input.count").forEach(function (input) {
      var words = input.closest("[data-step-less]");
      if (!words || input.parentNode.querySelector("button.step")) return;
      var names = (input.getAttribute("aria-labelledby") || "").split(" ").map(function (id) {
        var el = document.getElementById(id);
        return el ? el.textContent.trim() : "";
      });
      function button(step, sign, template) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "step";
        b.tabIndex = -1;
        b.dataset.step = step;
        b.setAttribute("aria-controls", input.id);
        b.setAttribute("aria-label", template.replace("{what}", names[0]).replace("{side}", names[1] || ""));
        b.textContent = sign;
        return b;
      }
      input.parentNode.insertBefore(button("-1", "\u2212", words.dataset.stepLess), input);
      input.parentNode.appendChild(button("1", "+", words.dataset.stepMore));
    });
  }
  document.addEventListener("DOMContentLoaded", function () { addSteps(document); });
  document.addEventListener("htmx:load", function (event) { addSteps(event.detail.elt); });

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
   and (for a correction) its version, so a stored draft never lands on another deal; when
   the form is aimed at another deal with the numbers in it (the conflict view; a deal
   kept offline before it), the draft moves with them. */
(function () {
  "use strict";
  var PREFIX = "scorekeeper:draft:";
  var DAY = 24 * 60 * 60 * 1000;
  var sent = null;  // the draft's key while the deal form is sent, until its answer settles

  var store = null;  // none where the browser refuses it (storage turned off)
  try { store = window.localStorage; } catch (e) { /* nothing is kept */ }

  function keyOf(form) {
    var guard = form.elements.version && form.elements.version.value
      ? "v" + form.elements.version.value
      : "d" + (form.elements.expected_deal ? form.elements.expected_deal.value : "");
    return PREFIX + form.getAttribute("action") + ":" + guard;
  }

  function fields(form) {
    return [].filter.call(form.elements, function (el) {
      return el.name && el.name.indexOf("sides-") === 0 || el.name === "went_out";
    });
  }

  function typedIn(form) {
    return fields(form).some(function (el) {
      return el.type === "radio" ? el.checked && el.value !== "" : el.value !== "";
    });
  }

  function save(form) {
    if (!store) return;
    var values = {};
    fields(form).forEach(function (el) {
      if (el.type === "radio") { if (el.checked) values[el.name] = el.value; }
      else if (el.value !== "") values[el.name] = el.value;
    });
    store.setItem(keyOf(form), JSON.stringify({ at: Date.now(), values: values }));
  }

  function restore(form) {
    if (!store) return;
    var raw = store.getItem(keyOf(form));
    if (!raw) return;
    var draft;
    try { draft = JSON.parse(raw); } catch (e) { store.removeItem(keyOf(form)); return; }
    if (typedIn(form) || !draft.values) return;  // the server's own values win (errors, corrections)
    fields(form).forEach(function (el) {
      if (!(el.name in draft.values)) return;
      if (el.type === "radio") el.checked = el.value === draft.values[el.name];
      else el.value = draft.values[el.name];
    });
    var note = document.createElement("p");
    note.className = "flash";
    note.setAttribute("role", "status");
    note.textContent = form.dataset.restoredText;
    form.insertBefore(note, form.querySelector("fieldset"));
    // Refresh the preview (an input event: a change of the went-out radio would refill books).
    var count = fields(form).filter(function (el) { return el.type !== "radio"; })[0];
    if (count) count.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function drop(key) {
    if (store && key) store.removeItem(key);
  }

  /* The form now aims elsewhere than the draft's key `from` (it is numbered after the
     deals kept offline, below): its numbers take their draft along; an empty form takes
     the draft kept for its deal now (a reload without a connection). */
  function reaimed(form, from) {
    if (!form || from === keyOf(form)) return;
    if (typedIn(form)) { save(form); drop(from); }
    else restore(form);
  }

  function tidy() {
    if (!store) return;
    for (var i = store.length - 1; i >= 0; i--) {
      var key = store.key(i);
      if (key && key.indexOf(PREFIX) === 0) {
        try { if (Date.now() - JSON.parse(store.getItem(key)).at > DAY) store.removeItem(key); }
        catch (e) { store.removeItem(key); }
      }
    }
  }

  /* A new deal form (the page's, or one a save's answer swapped in). After a save: the
     answer's numbers, when it brought them back (refused; the conflict view aims them at
     the next deal), are the draft now, under the form's key; an empty form means saved. */
  function setUp(root) {
    var form = root.querySelector("#deal-entry");
    if (form && form.dataset.draftReady) return;
    var from = sent;
    sent = null;
    if (form) form.dataset.draftReady = "1";
    if (from && form && typedIn(form)) {
      reaimed(form, from);  // the same key: its draft was kept when it was sent
    } else {
      drop(from);
      if (form) restore(form);
    }
  }

  ["input", "change"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var form = event.target.form;
      if (form && form.id === "deal-entry") save(form);
    });
  });
  /* While the deal form is sent its Save button says so (busy, not to be tapped again)
     until the answer, or htmx's time limit, comes; and no preview starts, nor lands: its
     going-out checklists, swapped out of band, would show the saved deal's books on the
     next deal's sheet. A preview answering for a sheet that is gone is dropped too. */
  function busy(form, on) {
    var button = form.querySelector(".form-actions .primary");
    if (!button) return;
    button.disabled = on;
    button[on ? "setAttribute" : "removeAttribute"]("aria-busy", "true");
  }
  document.addEventListener("htmx:beforeSend", function (event) {
    var form = event.detail.elt;
    if (form.id !== "deal-entry") return;
    sent = keyOf(form);
    busy(form, true);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // after a swap htmx tells it from the form's old place in the page: the config names it
    var form = event.detail.requestConfig.elt;
    if (form.id !== "deal-entry") return;
    busy(form, false);
    // not answered, or nothing swapped in: the form and its draft stay
    if (document.body.contains(form)) sent = null;
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt.id === "preview" && sent) event.preventDefault();
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = event.detail.elt;
    if (elt.id === "preview" && (sent || !document.body.contains(elt))) event.detail.shouldSwap = false;
  });
  document.addEventListener("submit", function (event) {
    // A plain submit (a correction) leaves the page; a stale draft of it can never match
    // again, because a saved correction bumps the deal's version.
    if (event.target.id === "deal-entry") save(event.target);
  });
  document.addEventListener("click", function (event) {
    // The conflict view's choice: "Keep theirs" lets the numbers typed go, "Put mine on
    // top" saves them; either way their draft goes.
    var form = document.getElementById("deal-entry");
    if (form && navigator.onLine && event.target.closest(".conflict-actions .button")) drop(keyOf(form));
  });
  document.addEventListener("htmx:afterSettle", function () { setUp(document); });
  document.addEventListener("DOMContentLoaded", function () { tidy(); setUp(document); });

  window.ScorekeeperDrafts = {
    keyOf: keyOf, reaimed: reaimed, forget: function (form) { drop(keyOf(form)); }
  };
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
    [].forEach.call(root.querySelectorAll("time[data-local]"), function (el) {
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

  /* The stylesheet's scroll-padding leaves room for the sticky totals' usual height; long
     names or many sides make them taller, and then the sheet is moved out from under them.
     (No inline style for it: the phone's copy of the page must keep to the CSP.) */
  function below(el, board) {
    var hidden = board ? board.getBoundingClientRect().bottom + 8 - el.getBoundingClientRect().top : 0;
    if (hidden > 0) window.scrollBy(0, -hidden);
  }

  function react(root) {
    var match = root.querySelector("#match[data-outcome]");
    if (!match) return;
    var outcome = match.dataset.outcome;
    match.removeAttribute("data-outcome");
    var form = match.querySelector("#deal-entry");
    var error = outcome === "refused" && firstError(match);
    // saved: the next sheet; another phone saved this deal first: both versions, from
    // their heading down
    var top = match.querySelector("#conflict") || outcome === "saved" && form;
    if (top) {
      top.scrollIntoView({ block: "start" });
      below(top, match.querySelector("#scoreboard"));
    } else if (outcome === "saved") {
      match.scrollIntoView({ block: "start" });  // the match is over: the result
    } else if (error) {
      error.show.scrollIntoView({ block: "center" });
    }
    // a conflict: its heading (the choice follows it), not the form below
    var focus = outcome === "saved" ? form && firstControl(form) :
      match.querySelector("#conflict-title") || error && error.focus;
    if (focus) focus.focus({ preventScroll: true });
  }

  document.addEventListener("htmx:afterSettle", function () { react(document); });
  document.addEventListener("DOMContentLoaded", function () { react(document); });
})();

/* Who deals first: each seat's option shows its player's name as soon as it is typed
   (the server does the same when it shows the form again). */
(function () {
  "use strict";
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input.id || !input.form) return;
    var options = input.form.querySelectorAll("option[data-name-from='" + input.id + "']");
    [].forEach.call(options, function (option) {
      option.textContent = input.value.trim() || option.dataset.seat;
    });
  });
})();

/* Service worker, screen kept on during a match, offline copy of the match page (see
   scorekeeper/web/pwa.py). */
(function () {
  "use strict";
  var PAGES = "pages-v1";
  var script = document.currentScript;
  var lock = null;

  function register() {
    if (!("serviceWorker" in navigator) || !script || !script.dataset.sw) return;
    navigator.serviceWorker.register(script.dataset.sw, { scope: "/" }).catch(function () {
      /* no worker (private mode, an old browser): the app works online as before */
    });
  }

  function onMatchPage() {
    return Boolean(document.getElementById("match"));
  }

  function keepAwake() {
    if (!("wakeLock" in navigator) || !onMatchPage() || document.visibilityState !== "visible") return;
    if (lock && !lock.released) return;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      document.documentElement.dataset.wakeLock = "on";
      sentinel.addEventListener("release", function () {
        document.documentElement.dataset.wakeLock = "off";
      });
    }).catch(function () { /* refused (battery saver, no user gesture yet): try later */ });
  }

  /* Store the page as it is now (after a swap) as this phone's offline copy of its URL. */
  function keepCopy() {
    if (!window.caches || !onMatchPage()) return;
    var copy = document.documentElement.cloneNode(true);
    copy.className = "no-js";
    copy.removeAttribute("data-wake-lock");
    copy.querySelectorAll("#pending-deals, .send-note, .flash").forEach(function (el) { el.remove(); });
    copy.querySelectorAll("[data-draft-ready], [data-page-deal]").forEach(function (el) {
      el.removeAttribute("data-draft-ready");
      el.removeAttribute("data-page-deal");
    });
    var html = "<!doctype html>\n" + copy.outerHTML;
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (worker) {  // in line with the worker's own writes of this page (static/js/sw.js)
      worker.postMessage({ type: "keep-page", path: location.pathname, html: html });
      return;
    }
    caches.open(PAGES).then(function (cache) {
      return cache.put(location.pathname, new Response(html, {
        headers: { "Content-Type": "text/html; charset=utf-8" }
      }));
    }).catch(function () { /* no room: the last copy stays */ });
  }

  /* Pages a match page links to for use at the table (its rules card): kept for offline
     use once, in the background, so the match page itself need not carry them. */
  function keepLinked() {
    if (!window.caches || !onMatchPage() || !navigator.onLine) return;
    document.querySelectorAll("a[data-keep-offline]").forEach(function (link) {
      var path = new URL(link.href).pathname;
      caches.open(PAGES).then(function (cache) {
        return cache.match(path).then(function (hit) {
          if (hit) return;
          return fetch(path, { credentials: "same-origin" }).then(function (response) {
            var store = !/no-store/.test(response.headers.get("Cache-Control") || "");
            if (response.ok && store && !response.redirected) return cache.put(path, response);
          });
        });
      }).catch(function () { /* offline or no room: kept the next time */ });
    });
  }

  /* After a log-out: drop this phone's copies of every page but the app shell's (a club's
     members-only pages among them), so a shared phone shows none of them offline. */
  function forgetPages() {
    var keep = document.body && document.body.dataset.forgetOffline;
    if (!keep || !window.caches) return;
    keep = JSON.parse(keep);
    caches.open(PAGES).then(function (cache) {
      return cache.keys().then(function (requests) {
        return Promise.all(requests.filter(function (request) {
          return keep.indexOf(new URL(request.url).pathname) < 0;
        }).map(function (request) { return cache.delete(request); }));
      });
    }).then(function () {
      document.documentElement.dataset.offlineForgotten = "yes";
    }).catch(function () { /* no cache storage: nothing kept */ });
  }

  document.addEventListener("visibilitychange", keepAwake);
  document.addEventListener("click", keepAwake);  // some browsers want a tap first
  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.target.id === "match") keepCopy();
  });
  document.addEventListener("DOMContentLoaded", function () {
    register();
    forgetPages();
    keepAwake();
    keepLinked();
    // A match page fetched without the worker in between (the first visit, before it took
    // over; the page a form's redirect led to) would have no offline copy until a save.
    keepCopy();
  });
})();

/* Deals saved without a connection: kept in IndexedDB and shown in the scoreboard here;
   static/js/sync.js, loaded only while a deal is kept, sends them (see
   scorekeeper/web/pwa.py). */
(function () {
  "use strict";
  var DB = "scorekeeper", STORE = "deals";
  var texts = {};
  var loading = null;

  function text(name, n) {
    return (texts[name] || name).replace("{n}", n === undefined ? "" : String(n));
  }

  function open() {
    return new Promise(function (resolve, reject) {
      var request = indexedDB.open(DB, 1);
      request.onupgradeneeded = function () {
        request.result.createObjectStore(STORE, { keyPath: "key" });
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }

  function store(mode, work) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode);
        var result = work(tx.objectStore(STORE));
        tx.oncomplete = function () { db.close(); resolve(result && result.result); };
        tx.onerror = function () { db.close(); reject(tx.error); };
      });
    });
  }

  function all() {
    return store("readonly", function (s) { return s.getAll(); }).then(function (rows) {
      return (rows || []).sort(function (a, b) { return a.deal - b.deal || a.at - b.at; });
    });
  }
  function put(row) { return store("readwrite", function (s) { s.put(row); }); }
  function remove(key) { return store("readwrite", function (s) { s.delete(key); }); }

  function pagePath(action) { return action.replace(/\/deals$/, ""); }

  function isNewDealForm(form) {
    return form && form.id === "deal-entry" && form.hasAttribute("hx-post");
  }

  /* What the user typed, side by side, with the form's own labels. */
  /* What was typed, side by side, for the scoreboard: the score sheet names each field by
     its row (aria-labelledby) and each side by its column's label. */
  function summary(form) {
    var count = parseInt(form.dataset.sides, 10) || 0;
    var sides = [];
    for (var i = 0; i < count; i++) sides.push({ side: sideLabel(form, i), went: false, items: [] });
    form.querySelectorAll("input[name^='sides-']").forEach(function (input) {
      var m = /^sides-(\d+)-/.exec(input.name);
      if (!m || input.type === "hidden" || input.value === "" || !sides[+m[1]]) return;
      var rowId = (input.getAttribute("aria-labelledby") || "").split(" ")[0];
      var row = rowId ? document.getElementById(rowId) : null;
      var label = form.querySelector("label[for='" + input.id + "']");
      var name = row ? row.childNodes[0].textContent.trim()
        : label ? label.childNodes[0].textContent.trim() : input.name;
      sides[+m[1]].items.push(name + " " + input.value);
    });
    var out = form.querySelector("input[name=went_out]:checked");
    if (out && out.value !== "" && sides[+out.value]) sides[+out.value].went = true;
    return sides;
  }

  function sideLabel(form, index) {
    var radio = form.querySelector("input[name=went_out][value='" + index + "']");
    var named = radio && radio.closest("label") && radio.closest("label").querySelector(".side-label");
    if (named) return named.textContent.trim();
    var cell = form.querySelector("[id^='sides-" + index + "-'].cell-side, .cell-side[id^='sides-" + index + "-']");
    return cell ? cell.textContent.trim() : String(index + 1);
  }

  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return [].map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  /* A few words just above the Save button (kept: "send-kept"; failed: "send-error"). */
  function message(form, words, kind) {
    var actions = form.querySelector(".form-actions");
    if (!actions) return;
    var note = form.querySelector(".send-note");
    if (!words) { if (note) note.remove(); return; }
    if (!note) {
      note = document.createElement("p");
      actions.parentNode.insertBefore(note, actions);
    }
    note.className = "send-note " + kind;
    note.setAttribute("role", kind === "send-error" ? "alert" : "status");
    note.textContent = words;
  }

  function clearEntry(form) {
    [].forEach.call(form.elements, function (el) {
      if (!el.name) return;
      if (el.name === "went_out") el.checked = el.value === "";
      else if (el.name.indexOf("sides-") === 0) el.value = "";
    });
    form.querySelectorAll("details.by-counts").forEach(function (d) { d.open = false; });
    unscored();
  }

  /* No deal score shown (the preview, the Save bar's line): the form was emptied, or a
     preview got no answer (no connection) or a refusal, and the score shown would be that
     of the numbers before the last change. */
  function unscored() {
    document.querySelectorAll("#preview, #deal-scores").forEach(function (el) { el.textContent = ""; });
  }
  ["htmx:sendError", "htmx:responseError"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (event.detail.elt.id === "preview") unscored();
    });
  });

  function keep(form, why) {
    var data = new FormData(form);
    var row = {
      key: data.get("submission_key") || newKey(),
      action: form.getAttribute("action"),
      page: pagePath(form.getAttribute("action")),
      deal: parseInt(data.get("expected_deal"), 10) || 0,
      version: data.get("version") || "",
      data: Array.from(data.entries()).filter(function (p) { return p[0] !== "csrf_token"; }),
      summary: summary(form),
      state: "waiting",
      at: Date.now()
    };
    return put(row).then(function () {
      ScorekeeperDrafts.forget(form);
      clearEntry(form);
      return show(document);
    }).then(function () {
      message(form, text(why, row.deal), "send-kept");
      return sync().then(function () { return window.ScorekeeperSync.sendAll(); });
    });
  }

  /* Number the form for the deal after the kept ones (back to the page's own deal when
     none is kept any more). */
  function advance(form, rows) {
    if (!isNewDealForm(form)) return;
    var expected = form.elements.expected_deal;
    if (!form.dataset.pageDeal) form.dataset.pageDeal = expected.value;
    var next = rows.length ? rows[rows.length - 1].deal + 1 : parseInt(form.dataset.pageDeal, 10);
    var shown = parseInt(expected.value, 10);
    if (shown === next || !next) return;
    var from = ScorekeeperDrafts.keyOf(form);
    [form.querySelector("h2"), form.querySelector(".form-actions .primary")].forEach(function (el) {
      if (el) el.textContent = el.textContent.replace(String(shown), String(next));
    });
    expected.value = String(next);
    form.elements.submission_key.value = newKey();
    ScorekeeperDrafts.reaimed(form, from);
  }

  function element(tag, cls, words) {
    var el = document.createElement(tag);
    if (cls) el.className = cls;
    if (words) el.textContent = words;
    return el;
  }

  function waitingItem(row) {
    var li = element("li", "pending-deal");
    li.dataset.key = row.key;
    li.appendChild(element("p", "pending-title", text("waiting", row.deal)));
    var sides = element("ul", "pending-sides");
    row.summary.forEach(function (side) {
      sides.appendChild(element("li", "", side.side + (side.went ? " ★" : "") + ": " + side.items.join(", ")));
    });
    li.appendChild(sides);
    li.appendChild(element("p", "hint", text("waiting_note")));
    return li;
  }

  /* static/js/sync.js (it sends the kept deals), loaded once. */
  function sync() {
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = document.querySelector("script[data-sync]").dataset.sync;
        script.onload = resolve;
        script.onerror = function () { loading = null; reject(); };
        document.head.appendChild(script);
      });
    }
    return loading;
  }

  /* The kept deals of this match, in its scoreboard. */
  function show(root) {
    var board = root.querySelector("#scoreboard");
    if (!board || !window.indexedDB) return Promise.resolve();
    return all().then(function (rows) {
      rows = rows.filter(function (r) { return r.page === location.pathname; });
      var refused = rows.some(function (r) { return r.state === "refused"; });
      return refused ? sync().then(function () { return rows; }) : rows;
    }).then(function (rows) {
      var list = board.querySelector("#pending-deals");
      if (list) list.remove();
      if (rows.length) {
        list = element("ol", "pending");
        list.id = "pending-deals";
        rows.forEach(function (row) {
          list.appendChild(row.state === "refused" ? window.ScorekeeperSync.refusedItem(row) : waitingItem(row));
        });
        board.appendChild(list);
      }
      advance(document.getElementById("deal-entry"), rows);
    });
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (!isNewDealForm(form) || event.detail.requestConfig.verb !== "post") return;
    message(form, "");
    if (!navigator.onLine && window.indexedDB) {
      event.preventDefault();
      keep(form, "queued");
    }
  });
  document.addEventListener("htmx:sendError", function (event) {
    var form = event.detail.elt;
    if (!isNewDealForm(form)) return;
    if (window.indexedDB) keep(form, "queued");
    else message(form, text("offline"), "send-error");
  });
  document.addEventListener("htmx:timeout", function (event) {
    var form = event.detail.elt;
    if (!isNewDealForm(form)) return;
    if (window.indexedDB) keep(form, "timeout");
    else message(form, text("offline"), "send-error");
  });
  document.addEventListener("htmx:responseError", function (event) {
    var form = event.detail.elt;
    if (form && form.id === "deal-entry") message(form, text("server_error"), "send-error");
  });
  /* The match page's other saves (Restore deal N, Name this phone): a failed send is told
     beside their button, and what was typed stays. */
  function otherPost(event) {
    var form = event.detail.elt, config = event.detail.requestConfig;
    return form && form.tagName === "FORM" && form.id !== "deal-entry" &&
      config && config.verb === "post" ? form : null;
  }
  function beside(form, words) {
    var note = form.querySelector(".send-note");
    if (!words) { if (note) note.remove(); return; }
    if (!note) {
      var button = form.querySelector("button[type=submit]");
      note = element("p", "send-note send-error");
      note.setAttribute("role", "alert");
      (button ? button.parentNode : form).insertBefore(note, button);
    }
    note.textContent = words;
  }
  [["htmx:beforeRequest", ""], ["htmx:sendError", "not_sent"], ["htmx:timeout", "no_answer"],
   ["htmx:responseError", "failed"]].forEach(function (pair) {
    document.addEventListener(pair[0], function (event) {
      var form = otherPost(event), why = pair[1];
      if (!form) return;
      if (why === "failed" && event.detail.xhr.status < 500) why = "refused_request";
      beside(form, why && text(why));
    });
  });
  /* A correction, and any other plain form post ("Put mine on top"), leaves the page:
     without a connection the browser would leave for its own error page. Say so beside
     the button instead, and keep what the form holds. */
  document.addEventListener("submit", function (event) {
    var form = event.target, fix = form.id === "deal-entry";
    if (isNewDealForm(form) || form.method !== "post") return;
    if (navigator.onLine) { if (fix) message(form, ""); return; }
    event.preventDefault();
    if (fix) message(form, text("offline_correction"), "send-error");
    else beside(form, text("not_sent"));
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var swapped = event.target;
    // the live preview (its table, the checklists, the Save bar's scores): not the scoreboard
    if (swapped.closest && swapped.closest("#deal-entry")) return;
    show(document);
  });
  document.addEventListener("DOMContentLoaded", function () {
    var data = document.getElementById("offline-texts");
    if (data) { try { texts = JSON.parse(data.textContent); } catch (e) { texts = {}; } }
    if (!window.indexedDB) return;
    show(document);
    all().then(function (rows) { if (rows.length) sync(); });
  });

  window.ScorekeeperKept = {
    all: all, put: put, remove: remove, show: show, text: text, element: element,
    clearEntry: clearEntry, isNewDealForm: isNewDealForm
  };
})();

/* Live pages (issue 14). Every few seconds, while the page is visible, ask the URL of the
   element with data-live whether what the page shows changed (If-None-Match: its
   data-live-etag; "304" when not), and swap in the parts that did, by their ids: the
   scoreboard, the deals, the chart, a club night's tables. Never the deal form: what is
   being typed stays. When the deal to enter moved on (data-deal), an untouched form is
   fetched afresh with the match; a form with numbers in it stays as it is (saving it
   shows the conflict view, templates/matches/_conflict.html).
   Kept small on purpose: the match page's first visit carries it (test_wire_weight.py). */
(function () {
  "use strict";
  var d = document, busy = 0, timer;

  function moved(box) {
    var f = d.getElementById("deal-entry"), e = f && f.hasAttribute("hx-post") && f.elements.expected_deal;
    if (!e || box.dataset.deal === e.value) return;
    var typed = f.contains(d.activeElement) || [].some.call(f.elements, function (el) {
      return el.name === "went_out" ? el.checked && el.value : /^sides-/.test(el.name) && el.value;
    });
    if (!typed && !d.getElementById("conflict") && window.htmx) {
      window.htmx.ajax("GET", location.pathname, { target: "#match", swap: "outerHTML" });
    }
  }

  function ask() {
    var el = d.querySelector("[data-live]"), h = { "HX-Request": "true" }, asked;
    if (!el || busy || d.hidden) return;
    busy = 1;
    asked = el.dataset.liveEtag || "";
    if (asked) h["If-None-Match"] = 'W/"' + asked + '"';
    fetch(el.dataset.live, { headers: h, cache: "no-store" }).then(function (r) {
      if (r.status !== 200) return;  // 304: unchanged; anything else: ask again later
      var tag = /"(.*)"/.exec(r.headers.get("ETag")) || [];
      return r.text().then(function (html) {
        var top = new DOMParser().parseFromString(html, "text/html").body.firstElementChild;
        // this phone's own save (or a live answer) swapped the page meanwhile: the answer
        // may be older than what is shown; the next ask tells what is newest
        if (!top || d.querySelector("[data-live]") !== el || el.dataset.liveEtag !== asked) return;
        [].slice.call(top.id ? [top] : top.children).forEach(function (part) {
          var here = part.id && d.getElementById(part.id);
          if (here && part.id === "announce") here.textContent = part.textContent;
          else if (here) here.replaceWith(d.importNode(part, true));
        });
        el = d.querySelector("[data-live]");
        if (el) el.dataset.liveEtag = tag[1] || "";
        if (!top.id) moved(top);
        if (window.ScorekeeperKept) window.ScorekeeperKept.show(d);  // deals kept offline
      });
    }).catch(function () {}).then(function () { busy = 0; });
  }

  function start() {
    clearInterval(timer);
    if (!d.hidden) { timer = setInterval(ask, 4000); ask(); }
  }
  d.addEventListener("visibilitychange", start);
  timer = setInterval(ask, 4000);
})();
