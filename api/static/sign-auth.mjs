// The code form of a signing link that asks for one (signer authentication, issue #34). For a
// one-time code (EMAIL_OTP, SMS_OTP) it asks the server to send one when none sent lately still
// works, and "Send a new code" asks again (the server allows one a minute, five an hour). A
// right code gives this browser its pass (an HttpOnly cookie) and the page is loaded again,
// now showing the document; five wrong codes lock the link and the page says so. All words come
// from the server, in the page's language.
const data = JSON.parse(document.getElementById("auth-data").textContent);
const { words } = data;
const byId = (id) => document.getElementById(id);
const form = byId("auth-form");
const input = byId("auth-code");
const error = byId("auth-error");
const status = byId("auth-status");
const resend = byId("auth-resend");

function fail(text) {
  error.textContent = text;
  input.setAttribute("aria-invalid", "true");
  input.focus();
}

async function post(path, body) {
  return fetch(data.base + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function sendCode() {
  let response;
  try {
    response = await post("/auth/send", {});
  } catch {
    error.textContent = words["sign-error-network"];
    return;
  }
  if (response.status === 403) return location.reload();
  if (response.ok) {
    status.textContent = words[data.method === "SMS_OTP" ? "sign-auth-sent-sms" : "sign-auth-sent-email"];
  } else if (response.status === 429) {
    status.textContent = words["sign-auth-too-soon"];
  } else {
    error.textContent = words["sign-error-network"];
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.textContent = "";
  input.removeAttribute("aria-invalid");
  const code = input.value;
  if (!code.trim()) return fail(words["sign-auth-empty"]);
  let response;
  try {
    response = await post("/auth", { code });
  } catch {
    return fail(words["sign-error-network"]);
  }
  if (response.ok || response.status === 403) return location.reload();
  const body = await response.json().catch(() => ({}));
  const reason = body.errors?.[0]?.reason ?? "";
  input.value = "";
  fail(reason.startsWith("wrong code") ? words["sign-auth-wrong"] : reason ? words["sign-auth-expired"] : words["sign-error-network"]);
});

if (resend) resend.addEventListener("click", sendCode);
if (data.method !== "ACCESS_CODE" && !data.codeLive) sendCode();
