/* The service worker, served at /sw.js with scope "/" (see scorekeeper/web/pwa.py):
   versioned static files cache first, pages network first with this phone's copy as the
   fallback, everything else untouched. */
(function () {
  "use strict";
  var config = self.SCOREKEEPER;
  var ASSETS = "assets-" + config.version;
  var PAGES = "pages-v1";

  // Installing: fetch the list of what to keep (config.shell, this version's), then keep it.
  self.addEventListener("install", function (event) {
    event.waitUntil(fetch(config.shell).then(function (response) {
      return response.json();
    }).then(function (shell) {
      return Promise.all([
        caches.open(ASSETS).then(function (cache) { return cache.addAll(shell.assets); }),
        caches.open(PAGES).then(function (cache) {
          return Promise.all(shell.pages.map(function (url) {
            return fetch(url, { credentials: "same-origin" }).then(function (response) {
              if (response.ok) return cache.put(url, response);
            }).catch(function () { /* kept the next time it is opened */ });
          }));
        })
      ]);
    }).then(function () { return self.skipWaiting(); }));
  });

  self.addEventListener("activate", function (event) {
    event.waitUntil(caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("assets-") === 0 && name !== ASSETS;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); }));
  });

  function isAsset(url) {
    return url.pathname.indexOf("/static/") === 0 && url.searchParams.has("v");
  }

  function isPage(request) {
    return request.mode === "navigate" ||
      (request.headers.get("Accept") || "").indexOf("text/html") === 0 &&
      !request.headers.get("HX-Request");
  }

  function cacheFirst(request) {
    return caches.match(request, { ignoreVary: true }).then(function (hit) {
      return hit || fetch(request).then(function (response) {
        if (response.ok) {
          var copy = response.clone();
          caches.open(ASSETS).then(function (cache) { cache.put(request, copy); });
        }
        return response;
      });
    });
  }

  /* Every write of a page's copy goes through one queue, in the order asked: a copy
     written by the page after a save (its message, below) never loses to the slower
     write of the copy fetched before it (a put completes only when its body is read). */
  var writing = Promise.resolve();
  function keepPage(url, response) {
    writing = writing.then(function () {
      return caches.open(PAGES).then(function (cache) { return cache.put(url, response); });
    }).catch(function () { /* no room: the last copy stays */ });
    return writing;
  }

  self.addEventListener("message", function (event) {
    var data = event.data || {};
    if (data.type !== "keep-page" || typeof data.path !== "string" || data.path.charAt(0) !== "/") return;
    event.waitUntil(keepPage(new URL(data.path, self.location.origin).href, new Response(data.html, {
      headers: { "Content-Type": "text/html; charset=utf-8" }
    })));
  });

  function networkFirst(event) {
    var request = event.request;
    return fetch(request).then(function (response) {
      // Keep a successful page (a redirect's final page is kept under its own URL), but
      // never one the server says not to store (members, one-time links).
      var store = !/no-store/.test(response.headers.get("Cache-Control") || "");
      if (store && response.ok && response.type === "basic" && !response.redirected) {
        event.waitUntil(keepPage(request.url, response.clone()));
      }
      return response;
    }).catch(function (error) {
      // This phone's copy of the page; else of the same page without its query (the meld
      // check's state, say); else the offline page.
      var path = new URL(request.url).pathname;
      return caches.open(PAGES).then(function (cache) {
        return [request.url, path, config.offline].reduce(function (found, url) {
          return found.then(function (hit) { return hit || cache.match(url, { ignoreVary: true }); });
        }, Promise.resolve(null)).then(function (hit) {
          if (hit) return hit;
          throw error;
        });
      });
    });
  }

  self.addEventListener("fetch", function (event) {
    var request = event.request;
    if (request.method !== "GET") return;
    var url = new URL(request.url);
    if (url.origin !== self.location.origin) return;
    if (isAsset(url)) {
      event.respondWith(cacheFirst(request));
    } else if (isPage(request)) {
      event.respondWith(networkFirst(event));
    }
  });
})();
