/* Sends the deals kept on this phone (static/js/app.js keeps them), in order, each
   with a fresh CSRF token, when the connection returns; shows a refusal with both
   versions. Loaded only while a deal is kept (see scorekeeper/web/pwa.py). */
(function () {
  "use strict";
  var K = window.ScorekeeperKept;
  var all = K.all, put = K.put, remove = K.remove, show = K.show, text = K.text, element = K.element;
  var RETRY = 20000;
  var sending = false;

  function fragment(html) {
    var box = element("div", "pending-version");
    box.innerHTML = html;  // our own server's page, as it rendered it
    // not what the live preview swaps in elsewhere: the checklists and the Save bar's scores
    box.querySelectorAll("[hx-swap-oob]").forEach(function (el) { el.remove(); });
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
    if (!K.isNewDealForm(form)) return Promise.resolve();
    K.clearEntry(form);
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

  function parse(html) { return new DOMParser().parseFromString(html, "text/html"); }

  function theirs(doc, deal) {
    var table = doc.querySelector(".deal-table");
    if (!table) return "";
    var copy = table.cloneNode(true);
    copy.querySelectorAll("tbody tr").forEach(function (tr) {
      var head = tr.querySelector("th");
      // the number leads the cell; who entered the deal follows it (issue 14)
      if (!head || parseInt(head.textContent, 10) !== deal) tr.remove();
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

  window.addEventListener("online", sendAll);
  setInterval(sendAll, RETRY);
  window.ScorekeeperSync = { refusedItem: refusedItem, sendAll: sendAll };
  sendAll();
})();
