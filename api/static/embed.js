// Signet embedded signing, for the integrator's page (docs/signing.md, "Embedded signing").
// Load it from your Signet server, no build step:
//
//   <script src="https://signet.example.com/embed.js"></script>
//   <div id="signing" style="height: 800px"></div>
//   <script>
//     Signet.open({
//       url,                      // `url` of POST .../recipients/{recipientId}/signing-session
//       container: "#signing",    // an element, or a selector
//       onReady(event) {},        // the page is shown: { type, documentId, recipientId }
//       onSigned(event) {},       // the recipient signed
//       onDeclined(event) {},     // the recipient declined
//       onError(event) {},        // the page cannot be used: { ..., reason }
//     });
//   </script>
//
// Messages are taken only from the frame it made, and only from the Signet server's origin.
(function () {
  "use strict";
  var CALLBACKS = {
    "signet:ready": "onReady",
    "signet:signed": "onSigned",
    "signet:declined": "onDeclined",
    "signet:error": "onError",
  };

  function open(options) {
    if (!options || typeof options.url !== "string") throw new TypeError("Signet.open: url is required");
    var source = new URL(options.url, window.location.href);
    var container = typeof options.container === "string" ? document.querySelector(options.container) : options.container;
    if (!container) throw new TypeError("Signet.open: container not found");
    var frame = document.createElement("iframe");
    frame.src = source.href;
    frame.title = options.title || "Signing";
    frame.style.border = "0";
    frame.style.width = "100%";
    frame.style.height = "100%";
    function listener(event) {
      if (event.source !== frame.contentWindow || event.origin !== source.origin) return;
      var data = event.data;
      if (!data || typeof data.type !== "string" || !CALLBACKS.hasOwnProperty(data.type)) return;
      var callback = options[CALLBACKS[data.type]];
      if (typeof callback === "function") callback(data);
    }
    window.addEventListener("message", listener);
    container.appendChild(frame);
    return {
      frame: frame,
      // Removes the frame and stops listening.
      close: function () {
        window.removeEventListener("message", listener);
        frame.remove();
      },
    };
  }

  window.Signet = Object.assign(window.Signet || {}, { open: open });
})();
