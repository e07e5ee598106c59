// Renders every page of a PDF with pdf.js into `root`, one framed canvas per page, for the
// placement page and the signing page. `scaleFor(naturalViewport)` picks each page's scale;
// `setUp(frame, canvas, number, viewport, scale)` runs before the page is drawn, so whatever it
// attaches works from the first moment. Resolves to the page count; when the browser cannot draw
// the PDF (pdf.js refuses it, or the file does not come), says so in `root` in plain words
// (`failedText`) instead of leaving it blank, and resolves to 0.
export async function renderPages(root, options, scaleFor, setUp) {
  try {
    return await drawPages(root, options, scaleFor, setUp);
  } catch {
    const note = document.createElement("p");
    note.className = "error pages-failed";
    note.setAttribute("role", "alert");
    note.textContent = options.failedText || "This document's pages cannot be shown here.";
    root.append(note);
    return 0;
  }
}

async function drawPages(root, { pdfjsUrl, workerUrl, fileUrl }, scaleFor, setUp) {
  const pdfjs = await import(pdfjsUrl);
  pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
  const pdf = await pdfjs.getDocument(fileUrl).promise;
  for (let number = 1; number <= pdf.numPages; number++) {
    const page = await pdf.getPage(number);
    const scale = scaleFor(page.getViewport({ scale: 1 }));
    const viewport = page.getViewport({ scale });
    const frame = document.createElement("div");
    frame.className = "page";
    frame.style.width = `${viewport.width}px`;
    frame.style.height = `${viewport.height}px`;
    // Drawn at the screen's pixel density (2 or 3 device pixels per CSS pixel on phones), shown
    // at the CSS size: sharp text instead of an upscaled blur.
    const density = window.devicePixelRatio || 1;
    const canvas = document.createElement("canvas");
    canvas.width = Math.floor(viewport.width * density);
    canvas.height = Math.floor(viewport.height * density);
    canvas.style.width = `${viewport.width}px`;
    canvas.style.height = `${viewport.height}px`;
    frame.append(canvas);
    root.append(frame);
    setUp(frame, canvas, number, viewport, scale);
    const transform = density === 1 ? null : [density, 0, 0, density, 0, 0];
    await page.render({ canvasContext: canvas.getContext("2d"), viewport, transform }).promise;
  }
  return pdf.numPages;
}
