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
    caches.open(PAGES).then(function (cache) {
      return cache.put(location.pathname, new Response(html, {
        headers: { "Content-Type": "text/html; charset=utf-8" }
      }));
    }).catch(function () { /* no room: the last copy stays */ });
  }

  document.addEventListener("visibilitychange", keepAwake);
  document.addEventListener("click", keepAwake);  // some browsers want a tap first
  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.target.id === "match") keepCopy();
  });
  document.addEventListener("DOMContentLoaded", function () {
    register();
    keepAwake();
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
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
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
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name) return;
      if (el.name === "went_out") el.checked = el.value === "";
      else if (el.name.indexOf("sides-") === 0) el.value = "";
    });
    form.querySelectorAll("details.by-counts").forEach(function (d) { d.open = false; });
    var preview = document.getElementById("preview");
    if (preview) preview.textContent = "";
  }

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
      try {
        localStorage.removeItem("scorekeeper:draft:" + row.action + ":d" + row.deal);
      } catch (e) { /* no storage: nothing to tidy */ }
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
    [form.querySelector("h2"), form.querySelector(".form-actions .primary")].forEach(function (el) {
      if (el) el.textContent = el.textContent.replace(String(shown), String(next));
    });
    expected.value = String(next);
    form.elements.submission_key.value = newKey();
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
  /* A correction is a plain form post: without a connection the browser would leave for
     its own error page. Say so beside Save instead, and keep the numbers in the form. */
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.id !== "deal-entry" || isNewDealForm(form)) return;
    if (navigator.onLine) { message(form, ""); return; }
    event.preventDefault();
    message(form, text("offline_correction"), "send-error");
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var swapped = event.target;
    if (swapped.closest && swapped.closest("#preview, .checklist")) return;  // not the scoreboard
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
