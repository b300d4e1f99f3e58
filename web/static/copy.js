// Copy buttons: the only script the pages have; everything works without it.
document.querySelectorAll("button[data-copy]").forEach((b) => {
  b.hidden = false;
  b.addEventListener("click", async () => {
    const text = document.getElementById(b.dataset.copy).textContent;
    try { await navigator.clipboard.writeText(text); b.textContent = "Copied"; } catch { b.textContent = "Select and copy"; }
    setTimeout(() => { b.textContent = "Copy"; }, 2000);
  });
});
