/* The offline page: the matches kept on this phone (static/js/sw.js keeps them). */
(function () {
  "use strict";
  var PAGES = "pages-v1";

  function listKeptMatches() {
    var list = document.getElementById("kept-matches");
    if (!list || !window.caches) return;
    caches.open(PAGES).then(function (cache) { return cache.keys(); }).then(function (requests) {
      // A match page is /m/<id>; its rules card (/m/<id>/rules), kept with it, is not one.
      var matches = requests.filter(function (r) { return /^\/m\/[^/]+$/.test(new URL(r.url).pathname); });
      return Promise.all(matches.map(function (request) {
        return caches.match(request).then(function (response) { return response.text(); })
          .then(function (html) {
            var title = new DOMParser().parseFromString(html, "text/html").title;
            return { url: new URL(request.url).pathname, title: title.split(" · ").slice(0, -1).join(" · ") || title };
          });
      }));
    }).then(function (items) {
      items.forEach(function (item) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = item.url;
        a.className = "match-link";
        a.textContent = item.title;
        li.appendChild(a);
        list.appendChild(li);
      });
      var none = document.getElementById("kept-none");
      if (none) none.hidden = items.length > 0;
    });
  }

  document.addEventListener("DOMContentLoaded", listKeptMatches);
})();
