// Embedded signing: tells the page that frames this one what happens, with postMessage, and
// only to the origins the account allows (each message is sent to each of them: the browser
// delivers it only to the one that is the parent, and drops the others). Once the signer has
// signed or declined, goes to the integrator's returnUrl if the session has one.
const element = document.getElementById("embed-data");
const embed = element ? JSON.parse(element.textContent) : null;

// Tells the parent `type` ("signet:ready", "signet:signed", "signet:declined", "signet:error").
export function tell(type, extra = {}) {
  if (!embed || window.parent === window) return;
  const message = { ...extra, type, documentId: embed.documentId, recipientId: embed.recipientId };
  for (const origin of embed.origins) window.parent.postMessage(message, origin);
}

// After signing or declining (`event`: "signed" or "declined"): tells the parent, then goes to
// returnUrl with `event` in its query. True when the page goes away.
export function finish(event) {
  tell(`signet:${event}`);
  if (!embed?.returnUrl) return false;
  const url = new URL(embed.returnUrl);
  url.searchParams.set("event", event);
  location.assign(url.href);
  return true;
}

// A page without the signing script (a closed document, a refusal) says what it is at once.
if (embed?.announce) {
  const { type, ...rest } = embed.announce;
  tell(type, rest);
}
