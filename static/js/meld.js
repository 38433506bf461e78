/* The minimum-meld check in the browser, for use without a connection: the same answers
   as the engine's (scorekeeper/engine/meld.py, RULES.md sections 1 and 6), fed the rule
   set's JSON (RuleSet.to_dict). tests/web/test_meld_js.py runs the same cases through
   both and compares every answer. Plain JavaScript, no build step; in Node it is a
   CommonJS module, in the page it is window.ScorekeeperMeld. */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.ScorekeeperMeld = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  var WILD = "wild", MIN_MELD = 3, MAX_MELD = 7;
  var RANK_NAMES = {
    A: "aces", K: "kings", Q: "queens", J: "jacks", "10": "tens", "9": "nines",
    "8": "eights", "7": "sevens", "6": "sixes", "5": "fives", "4": "fours"
  };
  /* The page's language: the engine's sentences (its message ids) translated, a sentence
     with a count given for each count (scorekeeper/web/pwa.py, meld_words); none: English. */
  var words = {};

  /* A sentence of the engine's, translated when the page gave it, its %(name)s filled. */
  function say(msgid, params, count) {
    var found = words[msgid], text = msgid;
    if (count !== undefined) {
      text = found && found[count] !== undefined ? found[count] : count === 1 ? msgid : params.plural;
    } else if (typeof found === "string") {
      text = found;
    }
    return text.replace(/%\((\w+)\)[sd]/g, function (all, name) {
      return params && params[name] !== undefined ? String(params[name]) : all;
    });
  }
  function rankName(rank) { return say(rank === WILD ? "wild cards" : RANK_NAMES[rank]); }

  function allows(limit, naturals, wilds) {
    if (limit.max_wilds !== null && limit.max_wilds !== undefined && wilds > limit.max_wilds) return false;
    return naturals >= limit.naturals_per_wild * wilds;
  }

  function mostWilds(limit, size) {
    var most = 0;
    for (var w = 0; w <= size; w++) if (allows(limit, size - w, w)) most = w;
    return most;
  }

  function wildsOf(meld) { return (meld.jokers || 0) + (meld.twos || 0); }
  function sizeOf(meld) { return (meld.naturals || 0) + wildsOf(meld); }

  function value(rules, meld) {
    var values = rules.card_values;
    var natural = meld.rank === WILD ? 0 : (meld.naturals || 0) * values[meld.rank];
    return natural + (meld.jokers || 0) * values.joker + (meld.twos || 0) * values["2"];
  }

  /* What a rule set saved before these knobs existed means (the engine reader's defaults,
     RULES.md 4): a black three and a wild card on top both block; melds of a rank unlimited. */
  function pileBlockedBy(rules) {
    var blocked = rules.pile_blocked_by;
    return blocked === null || blocked === undefined ? ["black3", "wild"] : blocked;
  }

  function pileSizeReasons(rules, pileSize) {
    var minimum = rules.discard_pickup.pile_minimum;
    if (pileSize !== null && pileSize !== undefined && pileSize < minimum) {
      return [say("The pile can only be taken when it holds %(minimum)s cards; it holds %(size)s.",
        { minimum: minimum, size: pileSize })];
    }
    return [];
  }

  /* A wild card on top: refused where it blocks the pile; elsewhere it is taken with two
     wild cards from hand as a wild-only meld (the top card is one of the meld's wilds). */
  function wildPickupReasons(rules, meld, pileSize) {
    if (pileBlockedBy(rules).indexOf("wild") >= 0) {
      return [say("The discard pile cannot be taken with a wild card on top.")];
    }
    var reasons = [];
    var fromHand = Math.max(0, wildsOf(meld) - 1);
    if (fromHand < 2) {
      reasons.push(say("Taking the pile with a wild card on top needs two wild cards from your hand;" +
        " this meld has %(from_hand)s.", { from_hand: fromHand }));
    }
    return reasons.concat(pileSizeReasons(rules, pileSize));
  }

  function pickupReasons(rules, meld, pileSize) {
    var reasons = [];
    var pickup = rules.discard_pickup;
    var name = rankName(meld.rank);
    var fromHand = (meld.naturals || 0) - 1;
    if (pickup.pair === "natural" && fromHand < 2) {
      reasons.push(say("Taking the pile needs two natural %(name)s from your hand with the top card;" +
        " this meld has %(from_hand)s.", { name: name, from_hand: fromHand }));
    } else if (pickup.pair === "natural_or_wild" && (fromHand < 1 || fromHand + wildsOf(meld) < 2)) {
      reasons.push(say("Taking the pile needs a pair from your hand with the top card: two %(name)s," +
        " or one and a wild card.", { name: name }));
    }
    return reasons.concat(pileSizeReasons(rules, pileSize));
  }

  /* Every reason a meld is not legal under the rules (empty when it is). */
  function meldReasons(rules, meld, pileSize) {
    var reasons = [];
    var size = sizeOf(meld), wilds = wildsOf(meld);
    if (size < MIN_MELD) {
      reasons.push(say("A meld needs at least %(least)s cards; this one has %(size)s.",
        { least: MIN_MELD, size: size }));
    } else if (size > MAX_MELD) {
      reasons.push(say("A meld holds at most %(most)s cards; this one has %(size)s.",
        { most: MAX_MELD, size: size }));
    }
    if (meld.rank === WILD) {
      if (rules.book_bonus.wild === null || rules.book_bonus.wild === undefined) {
        reasons.push(say("This rule set has no wild books, so a meld of only wild cards is not allowed."));
      }
      if (meld.top_card) reasons = reasons.concat(wildPickupReasons(rules, meld, pileSize));
      return reasons;
    }
    if (wilds && !allows(rules.wild_limit, meld.naturals || 0, wilds)) {
      var most = mostWilds(rules.wild_limit, size);
      var allowed = most === 0 ? say("no wild card")
        : say("at most %(num)d wild card", { num: most, plural: "at most %(num)d wild cards" }, most);
      reasons.push(say("A meld of %(size)s cards may hold %(allowed)s; this one has %(wilds)s.",
        { size: size, allowed: allowed, wilds: wilds }));
    }
    if (meld.top_card) reasons = reasons.concat(pickupReasons(rules, meld, pileSize));
    return reasons;
  }

  /* The minimum for a deal (1-based), or for a running total with thresholds. */
  function minimumFor(rules, deal, runningTotal) {
    var table = rules.minimum_meld;
    if (typeof table[0] === "number") return table[deal - 1];
    var minimum = table[0][1];
    table.forEach(function (pair) { if (runningTotal >= pair[0]) minimum = pair[1]; });
    return minimum;
  }

  function secondMeldReason(rank) {
    return say("Your side already starts a meld of %(name)s: add these cards to it. A meld must" +
      " become a book of 7 before another meld of that rank starts.", { name: rankName(rank) });
  }

  /* The answer of POST /api/v1/meld (MeldCheck.as_dict) for melds already read. Where the
     rule set allows one unfinished meld per rank, a meld of a rank with an unfinished meld
     (fewer than 7 cards) earlier in the list is illegal; wild-only melds are one rank.
     ``language``: the page's words for the reasons (none: English). */
  function checkMeld(rules, deal, melds, runningTotal, pileSize, language) {
    var open = {};
    words = language || {};
    var verdicts = melds.map(function (meld) {
      var reasons = meldReasons(rules, meld, pileSize);
      if (rules.one_open_meld_per_rank && Object.prototype.hasOwnProperty.call(open, meld.rank)) {
        reasons.push(secondMeldReason(meld.rank));
      }
      if (sizeOf(meld) < MAX_MELD) open[meld.rank] = true;
      return { legal: reasons.length === 0, value: value(rules, meld), reasons: reasons };
    });
    var minimum = minimumFor(rules, deal, runningTotal || 0);
    var counted = verdicts.reduce(function (sum, v) { return sum + (v.legal ? v.value : 0); }, 0);
    return {
      deal: deal,
      minimum: minimum,
      counted: counted,
      enough: verdicts.every(function (v) { return v.legal; }) && counted >= minimum,
      short_by: Math.max(0, minimum - counted),
      melds: verdicts
    };
  }

  return { checkMeld: checkMeld, meldReasons: meldReasons, minimumFor: minimumFor, value: value };
});
