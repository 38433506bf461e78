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

/* Deals saved without a connection: kept in IndexedDB, sent when it returns (see
   scorekeeper/web/pwa.py). */
(function () {
  "use strict";
  var DB = "scorekeeper", STORE = "deals", RETRY = 20000;
  var texts = {};
  var sending = false;

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
  function summary(form) {
    return Array.prototype.map.call(form.querySelectorAll("fieldset.side-entry"), function (set) {
      var legend = set.querySelector("legend");
      var items = [];
      set.querySelectorAll("input").forEach(function (input) {
        if (!input.name || input.type === "hidden" || input.value === "") return;
        var label = form.querySelector("label[for='" + input.id + "']");
        var name = label ? label.childNodes[0].textContent.trim() : input.name;
        items.push(name + " " + input.value);
      });
      var out = form.querySelector("input[name=went_out]:checked");
      var went = out && out.value === set.dataset.side;
      return { side: legend ? legend.childNodes[0].textContent.trim() : "", went: went, items: items };
    });
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

  function fragment(html) {
    var box = element("div", "pending-version");
    box.innerHTML = html;  // our own server's page, as it rendered it
    return box;
  }

  function actionButton(words, what, cls) {
    var button = element("button", "button " + cls, words);
    button.type = "button";
    button.dataset.pending = what;
    return button;
  }

  /* A kept deal the server refused: another phone's deal took its number ("taken"), or
     the server found it impossible ("problem"); ours is shown beside, never dropped. */
  function refusedItem(row) {
    var li = element("li", "pending-deal refused");
    var taken = row.refusal.kind === "taken";
    li.dataset.key = row.key;
    li.setAttribute("role", "alert");
    li.appendChild(element("p", "pending-title", text(taken ? "refused" : "problem", row.deal)));
    if (taken) {
      li.appendChild(element("h3", "", text("theirs")));
      li.appendChild(fragment(row.refusal.theirs));
    } else {
      var problems = element("ul", "errors");
      row.refusal.problems.forEach(function (p) { problems.appendChild(element("li", "", p)); });
      li.appendChild(problems);
    }
    li.appendChild(element("h3", "", text("yours")));
    li.appendChild(fragment(row.refusal.yours));
    var actions = element("div", "form-actions");
    actions.appendChild(taken ? actionButton(text("save_next"), "again", "primary")
      : actionButton(text("edit"), "edit", "primary"));
    actions.appendChild(actionButton(text("discard"), "discard", "danger"));
    li.appendChild(actions);
    return li;
  }

  /* Put a refused deal's numbers back in the form, to be put right and saved. */
  function edit(row) {
    var form = document.getElementById("deal-entry");
    if (!isNewDealForm(form)) return Promise.resolve();
    clearEntry(form);
    row.data.forEach(function (pair) {
      var name = pair[0], value = pair[1];
      if (name === "went_out") {
        form.querySelectorAll("input[name=went_out]").forEach(function (r) { r.checked = r.value === value; });
      } else if (name.indexOf("sides-") === 0 && form.elements[name]) {
        form.elements[name].value = value;
      }
    });
    return remove(row.key).then(function () {
      var count = form.querySelector("input[name^='sides-']");
      if (count) count.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  /* The kept deals of this match, in its scoreboard. */
  function show(root) {
    var board = root.querySelector("#scoreboard");
    if (!board || !window.indexedDB) return Promise.resolve();
    return all().then(function (rows) {
      rows = rows.filter(function (r) { return r.page === location.pathname; });
      var list = board.querySelector("#pending-deals");
      if (list) list.remove();
      if (rows.length) {
        list = element("ol", "pending");
        list.id = "pending-deals";
        rows.forEach(function (row) {
          list.appendChild(row.state === "refused" ? refusedItem(row) : waitingItem(row));
        });
        board.appendChild(list);
      }
      advance(document.getElementById("deal-entry"), rows);
    });
  }

  function parse(html) { return new DOMParser().parseFromString(html, "text/html"); }

  function theirs(doc, deal) {
    var table = doc.querySelector(".deal-table");
    if (!table) return "";
    var copy = table.cloneNode(true);
    copy.querySelectorAll("tbody tr").forEach(function (tr) {
      var head = tr.querySelector("th");
      if (!head || head.textContent.trim() !== String(deal)) tr.remove();
    });
    copy.querySelectorAll(".actions, thead th:last-child:empty").forEach(function (el) { el.remove(); });
    return copy.outerHTML;
  }

  function refuse(row, html) {
    var doc = parse(html);
    var current = doc.querySelector("#deal-entry input[name=expected_deal]");
    var next = current ? parseInt(current.value, 10) || null : null;
    var errors = doc.querySelector(".errors.general");
    var body = new URLSearchParams(row.data);
    body.set("csrf_token", (doc.querySelector("input[name=csrf_token]") || {}).value || "");
    return fetch(row.page + "/preview?deal=" + row.deal, {
      method: "POST", body: body, credentials: "same-origin", headers: { "HX-Request": "true" }
    }).then(function (r) { return r.ok ? r.text() : ""; }).catch(function () { return ""; })
      .then(function (yours) {
        row.state = "refused";
        row.refusal = {
          // The server moves a refused form on to the current deal when another phone's
          // deal took this number; any other refusal is a problem with the numbers.
          kind: next && next !== row.deal ? "taken" : "problem",
          theirs: (errors ? errors.outerHTML : "") + theirs(doc, row.deal),
          problems: Array.prototype.map.call(doc.querySelectorAll("#match .errors li"), function (li) {
            return li.textContent.trim();
          }),
          yours: yours,
          next: next
        };
        return put(row);
      });
  }

  /* Send one kept deal; resolves to "saved", "refused" or "later". */
  function send(row) {
    return fetch(row.page, { credentials: "same-origin", cache: "no-store" })
      .then(function (page) {
        if (!page.ok) return "later";
        return page.text().then(function (html) {
          var token = parse(html).querySelector("input[name=csrf_token]");
          var body = new URLSearchParams(row.data);
          body.set("csrf_token", token ? token.value : "");
          return fetch(row.action, {
            method: "POST", body: body, credentials: "same-origin", redirect: "manual"
          }).then(function (response) {
            if (response.type === "opaqueredirect" || response.status === 303 || response.ok) {
              return remove(row.key).then(function () { return "saved"; });
            }
            if (response.status === 422) {
              return response.text().then(function (refusal) {
                return refuse(row, refusal).then(function () { return "refused"; });
              });
            }
            return "later";  // a server error or a stale token: try again later
          });
        });
      })
      .catch(function () { return "later"; });
  }

  function sendAll() {
    if (sending || !navigator.onLine || !window.indexedDB) return Promise.resolve();
    sending = true;
    var blocked = {}, sent = false;
    return all().then(function (rows) {
      return rows.reduce(function (chain, row) {
        return chain.then(function () {
          if (row.state !== "waiting" || blocked[row.page]) { blocked[row.page] = true; return; }
          return send(row).then(function (outcome) {
            if (outcome === "saved") sent = true;
            else blocked[row.page] = true;  // keep the order: the next deals wait
          });
        });
      }, Promise.resolve());
    }).then(function () {
      sending = false;
      if (sent) refresh();
      else show(document);
    }, function () { sending = false; });
  }

  /* Fetch the match afresh (totals, deals) after kept deals were saved. */
  function refresh() {
    var match = document.getElementById("match");
    if (match && window.htmx) {
      window.htmx.ajax("GET", location.pathname, { target: "#match", swap: "outerHTML" });
    } else {
      show(document);
    }
  }

  function rowOf(button) {
    var li = button.closest(".pending-deal");
    return all().then(function (rows) {
      return rows.filter(function (r) { return li && r.key === li.dataset.key; })[0];
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-pending]");
    if (!button) return;
    rowOf(button).then(function (row) {
      if (!row) return;
      if (button.dataset.pending === "discard") return remove(row.key);
      if (button.dataset.pending === "edit") return edit(row);
      row.state = "waiting";
      row.deal = row.refusal.next || row.deal + 1;
      row.data = row.data.map(function (p) {
        return p[0] === "expected_deal" ? [p[0], String(row.deal)] : p;
      });
      delete row.refusal;
      return put(row);
    }).then(function () { return show(document); }).then(sendAll);
  });

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
    if (window.indexedDB) keep(form, "timeout").then(function () { setTimeout(sendAll, RETRY); });
    else message(form, text("offline"), "send-error");
  });
  document.addEventListener("htmx:responseError", function (event) {
    var form = event.detail.elt;
    if (form && form.id === "deal-entry") message(form, text("server_error"), "send-error");
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var swapped = event.target;
    if (swapped.closest && swapped.closest("#preview, .checklist")) return;  // not the scoreboard
    show(document);
  });
  window.addEventListener("online", sendAll);
  document.addEventListener("DOMContentLoaded", function () {
    var data = document.getElementById("offline-texts");
    if (data) { try { texts = JSON.parse(data.textContent); } catch (e) { texts = {}; } }
    show(document).then(sendAll);
    setInterval(sendAll, RETRY);
  });
})();
