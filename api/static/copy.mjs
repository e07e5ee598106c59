// "Copy" buttons: <button data-copy="ID"> copies the text of the element with that id. A file
// rather than an inline handler, which the pages' Content-Security-Policy does not run.
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", () => {
    const source = document.getElementById(button.dataset.copy);
    if (source) navigator.clipboard.writeText(source.textContent);
  });
}
