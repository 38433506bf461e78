/* The meld checker without a connection: each tap (or Check) that cannot reach the
   server is applied here, the melds checked by static/js/meld.js with the rule set the
   page came with, and the melds and the verdict drawn as the server draws them. Taps
   that need the server (other rules, another side of a match) say so and change nothing. */
(function () {
  "use strict";
  var RANKS = ["4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
  var COUNTS = ["naturals", "jokers", "twos"];
  var MAX_MELDS = 12;

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (all, key) {
      return key in values ? String(values[key]) : all;
    });
  }

  function escape(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function whole(text) {
    var t = String(text === undefined || text === null ? "" : text).trim() || "0";
    return /^\d{1,6}$/.test(t) ? parseInt(t, 10) : null;
  }

  /* The state the form holds: its melds, deal, top card, pile size. */
  function read(params) {
    var melds = [];
    for (var i = 0; params.get("melds-" + i + "-rank") !== null; i++) {
      var meld = { rank: params.get("melds-" + i + "-rank"), top_card: params.get("melds-" + i + "-top_card") === "1" };
      for (var k = 0; k < COUNTS.length; k++) {
        var n = whole(params.get("melds-" + i + "-" + COUNTS[k]));
        if (n === null) return null;  // a typed count the server must explain
        meld[COUNTS[k]] = n;
      }
      melds.push(meld);
    }
    var size = (params.get("size") || "").trim();
    return {
      deal: parseInt(params.get("deal"), 10) || 1,
      top: params.get("top") || "",
      size: size === "" ? null : whole(size),
      melds: melds
    };
  }

  function newMeld(rank, top) {
    return { rank: rank, naturals: rank === "wild" ? 0 : 3, jokers: 0, twos: 0, top_card: Boolean(top) };
  }

  /* Whether a wild card on top blocks the pile under these rules (a rule set saved before
     pile_blocked_by existed: it does, as the engine's reader says). */
  function wildBlocks(rules) {
    var blocked = rules.pile_blocked_by;
    return blocked === null || blocked === undefined || blocked.indexOf("wild") >= 0;
  }

  /* The state after a tap (as scorekeeper/web/meld/state.py's apply_op), or null. A wild
     card on top blocks the pile where the rules say so; elsewhere it marks a wild meld. */
  function apply(state, op, rules) {
    var deals = rules.deals;
    var parts = op.split(":"), verb = parts[0], arg = parts.slice(1).join(":");
    var melds = state.melds;
    if (verb === "inc" || verb === "dec") {
      var delta = verb === "inc" ? 1 : -1;
      if (arg === "size") { state.size = Math.max(0, (state.size || 0) + delta); return state; }
      var meld = melds[parseInt(parts[1], 10)], field = parts[2];
      if (!meld || COUNTS.indexOf(field) < 0) return null;
      meld[field] = Math.max(0, meld[field] + delta);
      return state;
    }
    if (verb === "add" && (RANKS.indexOf(arg) >= 0 || arg === "wild") && melds.length < MAX_MELDS) {
      melds.push(newMeld(arg));
      return state;
    }
    if (verb === "remove" && melds[parseInt(arg, 10)]) { melds.splice(parseInt(arg, 10), 1); return state; }
    if (verb === "clear") { state.melds = []; state.top = ""; state.size = null; return state; }
    if (verb === "deal" && parseInt(arg, 10) >= 1 && parseInt(arg, 10) <= deals) {
      state.deal = parseInt(arg, 10);
      return state;
    }
    if (verb === "top") {
      melds.forEach(function (m) { m.top_card = false; });
      if (arg === "none" || arg === "3" || (arg === "wild" && wildBlocks(rules))) {
        state.top = arg === "none" ? "" : arg;
        return state;
      }
      if (RANKS.indexOf(arg) < 0 && arg !== "wild") return null;
      state.top = "";
      var same = melds.filter(function (m) { return m.rank === arg; })[0];
      if (same) { same.top_card = true; return state; }
      if (melds.length >= MAX_MELDS) return null;
      melds.push(newMeld(arg, true));
      return state;
    }
    return null;  // other rules, another side: the server's to answer
  }

  function button(op, text, label, cls, disabled) {
    return '<button type="submit" name="op" value="' + escape(op) + '" id="op-' + escape(op.replace(/:/g, "-")) +
      '" class="' + cls + '"' + (label ? ' aria-label="' + escape(label) + '"' : "") + (disabled ? " disabled" : "") +
      ">" + escape(text) + "</button>";
  }

  function stepper(data, i, field, label, value) {
    var id = "melds-" + i + "-" + field, key = i + ":" + field;
    return '<div class="stepper meld-stepper"><label for="' + id + '">' + escape(label) + "</label>" +
      '<div class="stepper-controls">' + button("dec:" + key, "−", fill(data.texts.less, { what: label }), "step", value === 0) +
      '<input autocomplete="off" class="count" id="' + id + '" inputmode="numeric" name="' + id +
      '" pattern="[0-9]*" placeholder="0" type="text" value="' + value + '">' +
      button("inc:" + key, "+", fill(data.texts.more, { what: label }), "step", false) + "</div></div>";
  }

  function card(data, meld, i, verdict) {
    var t = data.texts, name = data.labels[meld.rank] || meld.rank;
    var html = '<li class="meld-card ' + (verdict.legal ? "is-legal" : "is-illegal") + '" id="meld-' + i +
      '" data-rank="' + escape(meld.rank) + '" data-legal="' + verdict.legal + '" data-value="' + verdict.value + '">' +
      '<input id="melds-' + i + '-rank" name="melds-' + i + '-rank" type="hidden" value="' + escape(meld.rank) + '">' +
      '<input id="melds-' + i + '-top_card" name="melds-' + i + '-top_card" type="hidden" value="' + (meld.top_card ? "1" : "") + '">' +
      '<div class="meld-head"><h3 class="meld-name">' + escape(fill(t.meld, { n: i + 1, name: name })) + "</h3>" +
      '<span class="meld-value">' + escape(fill(t.points, { n: verdict.value })) + "</span>" +
      '<span class="meld-status">' + escape(verdict.legal ? t.legal : t.illegal) + "</span></div>";
    if (meld.top_card) html += '<p class="meld-top">' + escape(t.top) + "</p>";
    if (verdict.reasons.length) {
      html += '<ul class="meld-reasons">' + verdict.reasons.map(function (r) { return "<li>" + escape(r) + "</li>"; }).join("") + "</ul>";
    }
    html += '<div class="meld-counts">' +
      (meld.rank === "wild" ? "" : stepper(data, i, "naturals", name, meld.naturals)) +
      stepper(data, i, "jokers", t.jokers, meld.jokers) + stepper(data, i, "twos", t.twos, meld.twos) + "</div>" +
      button("remove:" + i, t.remove, fill(t.remove_meld, { n: i + 1 }), "meld-remove", false) + "</li>";
    return html;
  }

  function setPressed(checker, prefix, chosen) {
    checker.querySelectorAll("button[name=op][value^='" + prefix + "']").forEach(function (b) {
      if (b.hasAttribute("aria-pressed")) b.setAttribute("aria-pressed", b.value === prefix + chosen ? "true" : "false");
    });
  }

  function hidden(form, name, value) {
    var input = form.querySelector("input[type=hidden][name='" + name + "']");
    if (!input && value !== "") {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.insertBefore(input, form.firstChild);
    }
    if (input) input.value = value;
  }

  function draw(checker, data, state, result, note) {
    var t = data.texts, form = checker.querySelector("form");
    var list = checker.querySelector(".meld-list"), empty = checker.querySelector(".meld-empty");
    var html = state.melds.map(function (m, i) { return card(data, m, i, result.melds[i]); }).join("");
    if (!list) {
      list = document.createElement("ol");
      list.className = "meld-list";
      (empty || checker.querySelector(".meld-add")).insertAdjacentElement("beforebegin", list);
    }
    if (empty) empty.hidden = state.melds.length > 0;
    list.innerHTML = html;
    hidden(form, "deal", String(state.deal));
    hidden(form, "top", state.top);
    setPressed(checker, "deal:", String(state.deal));
    var top = state.melds.filter(function (m) { return m.top_card; })[0];
    setPressed(checker, "top:", top ? top.rank : state.top || "none");
    var verdict = checker.querySelector("#meld-verdict");
    if (verdict) {
      verdict.className = "meld-verdict " + (result.enough ? "is-enough" : "is-short");
      verdict.dataset.enough = String(result.enough);
      verdict.dataset.counted = result.counted;
      verdict.dataset.minimum = result.minimum;
      verdict.dataset.shortBy = result.short_by;
      var main = verdict.querySelector(".meld-verdict-main"), sub = verdict.querySelector(".meld-verdict-sub");
      if (main) {
        main.textContent = result.enough ? fill(t.enough, result) :
          result.short_by ? fill(t.short, { n: result.short_by }) : t.not_yet;
      }
      if (sub) sub.textContent = fill(t.sub, result);
    }
    notice(checker, note);
    keepInView();
  }

  /* After a tap the button keeps the focus (htmx gives it back to the new one with its
     id), but a meld added above it can push it below the screen: bring it back in view. */
  function keepInView() {
    var focused = document.activeElement;
    if (!focused || !focused.closest || !focused.closest("#meld-checker")) return;
    var box = focused.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) focused.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("htmx:afterSettle", keepInView);

  function notice(checker, words) {
    var box = checker.querySelector(".meld-offline-note");
    if (!box) {
      box = document.createElement("p");
      box.className = "meld-offline-note flash";
      box.setAttribute("role", "status");
      checker.querySelector("form").insertAdjacentElement("afterbegin", box);
    }
    box.textContent = words;
  }

  /* Answer a request of the checker's form here; true when it was answered. */
  function answer(form, params, elt) {
    var checker = form.closest("#meld-checker");
    var source = checker && checker.querySelector(".meld-offline-data");
    if (!source || !window.ScorekeeperMeld) return false;
    var data = JSON.parse(source.textContent);
    var state = elt.name === "rules" ? null : read(params);  // other rules: the server's
    var op = params.get("op");
    if (state && op) state = apply(state, op, data.rules);
    if (!state) { notice(checker, data.texts.needs_connection); return true; }
    var result = window.ScorekeeperMeld.checkMeld(data.rules, state.deal, state.melds, data.total, state.size, data.words);
    draw(checker, data, state, result, data.texts.offline);
    return true;
  }

  function paramsOf(detail) {
    var config = detail.requestConfig || {};
    var params = config.formData || config.parameters;
    if (params && typeof params.get === "function") return params;
    return new URLSearchParams(params || {});
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("#meld-checker form");
    if (!form || navigator.onLine) return;
    if (answer(form, paramsOf(event.detail), event.detail.elt)) event.preventDefault();
  });
  document.addEventListener("htmx:sendError", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("#meld-checker form");
    if (form) answer(form, paramsOf(event.detail), event.detail.elt);
  });
})();
