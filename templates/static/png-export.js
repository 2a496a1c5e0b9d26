// A chart's "PNG, 1200 px" button: the reader's browser draws the chart's SVG into a
// canvas 1200 px wide, with the site's bundled fonts, and saves it. Plain script, no
// library; the fonts (static/fonts.js, 2 MB) load on the first click only.
// `roundup render --png` exports the same PNGs as files instead, and drops this script.
"use strict";
(function () {
  const WIDTH = 1200;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const base = document.currentScript.src.replace(/[^/]*$/, "");
  let fonts = null;

  /** The bundled fonts as data URLs, from static/fonts.js (a script: file:// pages may not fetch). */
  function loadFonts() {
    if (!fonts) {
      fonts = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = base + "fonts.js";
        s.onload = () => resolve(window.roundupFonts);
        s.onerror = () => reject(new Error("static/fonts.js did not load"));
        document.head.appendChild(s);
      });
    }
    return fonts;
  }

  /** The chart as a PNG blob, WIDTH px wide, on white. */
  async function toPng(svg) {
    const f = await loadFonts();
    const w = Number(svg.getAttribute("width"));
    const h = Number(svg.getAttribute("height"));
    const copy = svg.cloneNode(true);
    copy.setAttribute("xmlns", SVG_NS);
    if (!copy.getAttribute("viewBox")) copy.setAttribute("viewBox", `0 0 ${w} ${h}`);
    const height = Math.round((h * WIDTH) / w);
    copy.setAttribute("width", WIDTH);
    copy.setAttribute("height", height);
    // An SVG drawn as an image sees no stylesheet of the page: its fonts go inside it.
    const style = document.createElementNS(SVG_NS, "style");
    style.textContent =
      `@font-face { font-family: "${f.family}"; src: url(${f.regular}); font-weight: normal; }\n` +
      `@font-face { font-family: "${f.family}"; src: url(${f.bold}); font-weight: bold; }\n` +
      `text { font-family: "${f.family}"; }`;
    copy.insertBefore(style, copy.firstChild);
    const url = URL.createObjectURL(
      new Blob([new XMLSerializer().serializeToString(copy)], { type: "image/svg+xml" })
    );
    try {
      const img = new Image();
      img.src = url;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = WIDTH;
      canvas.height = height;
      const ctx = canvas.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, WIDTH, height);
      ctx.drawImage(img, 0, 0, WIDTH, height);
      return await new Promise((resolve, reject) =>
        canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the canvas gave no PNG"))), "image/png")
      );
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button.png-export");
    if (!button) return;
    const svg = button.closest("figure").querySelector("svg");
    button.disabled = true;
    try {
      const blob = await toPng(svg);
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = button.dataset.file;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    } catch (e) {
      button.title = "PNG export failed: " + e.message;
      console.error("PNG export failed: " + e.message);
    } finally {
      button.disabled = false;
    }
  });
})();
