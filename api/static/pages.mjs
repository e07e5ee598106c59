// Renders every page of a PDF with pdf.js into `root`, one framed canvas per page, for the
// placement page and the signing page. `scaleFor(naturalViewport)` picks each page's scale;
// `setUp(frame, canvas, number, viewport, scale)` runs before the page is drawn, so whatever it
// attaches works from the first moment. Resolves to the page count.
export async function renderPages(root, { pdfjsUrl, workerUrl, fileUrl }, scaleFor, setUp) {
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
    const canvas = document.createElement("canvas");
    canvas.width = viewport.width;
    canvas.height = viewport.height;
    frame.append(canvas);
    root.append(frame);
    setUp(frame, canvas, number, viewport, scale);
    await page.render({ canvasContext: canvas.getContext("2d"), viewport }).promise;
  }
  return pdf.numPages;
}
