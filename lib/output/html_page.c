/* The HTML report: one self-contained file (inline CSS, SVG and a little JavaScript; nothing fetched): the
 * page and its contents list around the report's sections in their one order (report_sections.h); the last
 * section, one per config, is html.c. */
#include "html.h"
#include "report.h"

#define esc pm_html_esc

static const char CSS[] =
    ":root{--fg:#1b1c1f;--bg:#fff;--muted:#5f6368;--line:#d9dce1;--head:#f1f3f5;--accent:#0b57d0;--card:#f8f9fb;"
    "--warn:#b3261e}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e3e3e6;--bg:#131417;--muted:#9aa0a6;--line:#3c4046;"
    "--head:#202327;--accent:#8ab4f8;--card:#1b1d21;--warn:#f28b82}}"
    "*{box-sizing:border-box}html{scroll-padding-top:8px}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:var(--bg)}"
    ".page{display:grid;grid-template-columns:250px minmax(0,1fr);gap:28px;max-width:2400px;margin:0 auto;padding:0 16px}"
    "nav.toc{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:18px 0;font-size:13px}"
    "nav.toc ol{list-style:none;padding-left:0;margin:0}nav.toc ol ol{padding-left:12px}nav.toc li{margin:2px 0}"
    "nav.toc a{color:var(--fg);text-decoration:none}nav.toc a:hover{color:var(--accent)}"
    "nav.toc .cfglist a{font-family:ui-monospace,monospace;font-size:11px;overflow-wrap:anywhere}"
    "main{min-width:0;padding-bottom:60px}a{color:var(--accent)}"
    "h1{font-size:24px;margin:18px 0 4px}h2{font-size:19px;margin:28px 0 8px;padding-top:8px;border-top:1px solid var(--line)}"
    "h3{font-size:16px;margin:18px 0 6px}h4{font-size:14px;margin:12px 0 4px}"
    ".sub{color:var(--muted);margin:0 0 12px;max-width:140ch}main>p{max-width:140ch}.note{color:var(--muted);font-style:italic}.warn{color:var(--warn)}"
    ".headline{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 16px;margin:12px 0}"
    ".headline li{margin:4px 0}.headline b{font-weight:600}"
    ".tbl{margin:6px 0 16px}.tw{display:inline-block;vertical-align:top;overflow:auto;max-width:100%;max-height:85vh;border:1px solid var(--line);border-radius:6px}"
    ".tbl input.filter{display:block}"
    "table{border-collapse:collapse;font-size:13px}caption{text-align:left;color:var(--muted);padding:4px 8px}"
    "th,td{padding:3px 9px;border-bottom:1px solid var(--line);white-space:nowrap;text-align:left}"
    "td:not(.n){white-space:normal;overflow-wrap:anywhere;min-width:6em;max-width:42em}"
    "th{white-space:normal;overflow-wrap:anywhere}th.n,td.n{padding:3px 6px}td.n{white-space:normal;min-width:4em}"
    /* an A/B row's config key is what the reader looks up: whole, never "sto|ck" */
    "table[id^=t-ab-] td,table[id^=t-ab-] th{white-space:nowrap;overflow-wrap:normal;max-width:none}"
    "table[id^=t-ab-] caption{color:var(--fg)}"
    ".finding{margin:0 0 6px;font-weight:400}"
    "th{background:var(--head);position:sticky;top:0;cursor:pointer;user-select:none;font-weight:600}"
    "th.n,td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}"
    "tbody tr:hover{background:var(--card)}"
    "input.filter{font:inherit;padding:3px 8px;margin:0 0 6px;width:320px;max-width:100%;border:1px solid var(--line);"
    "border-radius:4px;background:var(--bg);color:var(--fg)}"
    "figure{margin:14px 0;padding:8px;background:#fff;color:#000;border:1px solid var(--line);border-radius:8px;"
    "max-width:100%;overflow:hidden}figure svg{display:block;width:100%;height:auto;max-height:78vh}"
    /* a figure clicked fills the window (again, or Esc: back); drawn at its own size otherwise */
    "figure[data-figure] svg{cursor:zoom-in}figure.big{position:fixed;inset:0;z-index:9;margin:0;border-radius:0;"
    "max-width:none;overflow:auto}figure.big svg{max-width:none!important;width:100%;height:calc(100vh - 80px);"
    "max-height:none;cursor:zoom-out}"
    "figcaption{font-weight:600;margin:0 0 4px}figure.omitted{background:var(--card);color:var(--fg)}"
    "code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}"
    "pre{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px;overflow-x:auto;"
    "white-space:pre-wrap;word-break:break-all;max-height:320px}"
    ".argv{display:block;white-space:pre-wrap;word-break:break-all;background:var(--card);padding:4px 6px;"
    "border-radius:4px;margin:2px 0 8px}"
    "section.cfg{border-top:1px dashed var(--line);margin-top:22px}section.cfg:target h3{color:var(--accent)}"
    ".icicle{width:100%;height:auto;display:block;border:1px solid var(--line);border-radius:6px;background:var(--card)}"
    ".icicle text{font:11px system-ui,sans-serif;pointer-events:none}.icicle rect:hover{stroke:var(--fg);stroke-width:1.5}"
    ".icicle g.hid{display:none}.icicle rect{cursor:zoom-in}"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:4px 0}"
    ".legend span::before{content:'';display:inline-block;width:10px;height:10px;margin-right:4px;"
    "background:var(--c);border-radius:2px}"
    "dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0}dl.kv dt{color:var(--muted)}"
    "dl.kv dd{margin:0}"
    "@media (max-width:900px){.page{grid-template-columns:1fr}nav.toc{position:static;max-height:none}}";

/* Sorting (click a header; numbers by data-v) and filtering (rows containing the text). */
static const char JS[] =
    "(function(){"
    "function key(td,num){if(!td)return num?NaN:'';var v=td.getAttribute('data-v');"
    "return num?(v===null||v===''?NaN:+v):(v!==null?v:td.textContent).toLowerCase();}"
    "function sortBy(t,i,th){var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),"
    "num=th.getAttribute('data-num')==='1',asc=th.getAttribute('aria-sort')!=='ascending';"
    "Array.prototype.forEach.call(t.tHead.rows[0].cells,function(h){h.removeAttribute('aria-sort');});"
    "th.setAttribute('aria-sort',asc?'ascending':'descending');"
    "rows.sort(function(a,b){var x=key(a.cells[i],num),y=key(b.cells[i],num);"
    "if(num){if(isNaN(x))return isNaN(y)?0:1;if(isNaN(y))return -1;return asc?x-y:y-x;}"
    "return asc?x.localeCompare(y):y.localeCompare(x);});"
    "rows.forEach(function(r){tb.appendChild(r);});}"
    "Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(t){"
    "if(!t.tHead)return;Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){th.tabIndex=0;"
    "th.addEventListener('click',function(){sortBy(t,i,th);});"
    "th.addEventListener('keydown',function(e){if(e.key==='Enter')sortBy(t,i,th);});});});"
    "Array.prototype.forEach.call(document.querySelectorAll('input.filter'),function(inp){"
    "inp.addEventListener('input',function(){var t=document.getElementById(inp.getAttribute('data-for')),"
    "q=inp.value.toLowerCase();Array.prototype.forEach.call(t.tBodies[0].rows,function(r){"
    "r.hidden=q!==''&&r.textContent.toLowerCase().indexOf(q)<0;});});});"
    /* the icicle's click-to-zoom: the x axis rescaled to the clicked box's span (data-x, data-w at full view),
     * boxes under half a unit hidden, labels cut to the new widths; the same box again, or the background, zooms
     * out */
    "function zoom(svg,x0,x1){var W=+svg.getAttribute('data-w'),k=W/(x1-x0);svg.pmZoom=x0===0&&x1===W?null:[x0,x1];"
    "Array.prototype.forEach.call(svg.querySelectorAll('g[data-x]'),function(g){"
    "var x=+g.getAttribute('data-x'),w=+g.getAttribute('data-w'),a=Math.max((x-x0)*k,0),b=Math.min((x+w-x0)*k,W),"
    "nw=b-a,r=g.querySelector('rect'),t=g.querySelector('text');"
    "if(nw<0.5){g.classList.add('hid');return;}g.classList.remove('hid');"
    "r.setAttribute('x',a.toFixed(2));r.setAttribute('width',(nw>1?nw-0.5:nw).toFixed(2));"
    "if(nw<=36){if(t)t.textContent='';return;}"
    "if(!t){t=document.createElementNS('http://www.w3.org/2000/svg','text');"
    "t.setAttribute('y',+r.getAttribute('y')+12);t.setAttribute('fill',g.classList.contains('st')?'#fff':'#111');"
    "g.appendChild(t);}"
    "var n=g.getAttribute('data-n'),fit=Math.floor((nw-6)/6.2);t.setAttribute('x',(a+3).toFixed(2));"
    "t.textContent=fit>=n.length?n:n.slice(0,Math.max(fit-1,1))+'\\u2026';});}"
    "Array.prototype.forEach.call(document.querySelectorAll('svg.icicle'),function(svg){"
    "svg.addEventListener('click',function(e){var W=+svg.getAttribute('data-w'),"
    "g=e.target.closest?e.target.closest('g[data-x]'):null,z=svg.pmZoom;"
    "if(!g){zoom(svg,0,W);return;}var x=+g.getAttribute('data-x'),w=+g.getAttribute('data-w');"
    "if(w<=0)return;if(z&&z[0]===x&&z[1]===x+w){zoom(svg,0,W);return;}zoom(svg,x,x+w);});});"
    /* click to enlarge a figure: it fills the window until clicked again or Esc */
    "Array.prototype.forEach.call(document.querySelectorAll('figure[data-figure]'),function(fg){"
    "var s=fg.querySelector('svg');if(s)s.addEventListener('click',function(){fg.classList.toggle('big');});});"
    "document.addEventListener('keydown',function(e){if(e.key==='Escape')Array.prototype.forEach.call("
    "document.querySelectorAll('figure.big'),function(fg){fg.classList.remove('big');});});"
    "})();";





/* ---- the page: head, contents list (the sections that show), title, the sections in order, script ---- */

static void contents(const pm_report_ctx *x, FILE *f)
{
    size_t n;
    const pm_report_section *const *s = pm_report_sections(&n);
    fputs("<nav class=toc aria-label=contents><ol>", f);
    for (size_t i = 0; i < n; i++) {
        if (!s[i]->html || !s[i]->toc || !pm_report_section_shows(s[i], x->a))
            continue;
        fprintf(f, "<li><a href=\"#%s\">%s</a>", s[i]->id, s[i]->toc);
        if (s[i]->toc_sub)
            s[i]->toc_sub(x, f);
        fputs("</li>", f);
    }
    fputs("</ol></nav>\n<main>\n", f);
}

int pm_html_report(const pm_report_ctx *x, FILE *f, pm_err *err)
{
    const pm_analysis *a = x->a;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
          "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
          "<meta name=color-scheme content=\"light dark\"><title>passmap report: ", f);
    esc(f, a->sweep);
    fprintf(f, "</title>\n<style>%s</style></head><body><div class=page>\n", CSS);
    contents(x, f);
    fputs("<h1>What dominates the compile: ", f);
    esc(f, a->sweep);
    fprintf(f, "</h1><p class=sub>back end %s \u00b7 %zu configs \u00b7 up to %d cold repeats \u00b7 %d runs ok, "
               "%d failed, %d without a report</p>\n", a->backend ? a->backend : "-", a->n_configs, a->summary.max_repeats,
            a->summary.n_runs_ok, a->summary.n_runs_failed, a->summary.n_runs_no_report);
    size_t n;
    const pm_report_section *const *s = pm_report_sections(&n);
    for (size_t i = 0; i < n; i++) {
        if (!s[i]->html || !pm_report_section_shows(s[i], a))
            continue;
        int rc = s[i]->html(x, f, err);
        if (rc)
            return rc;
    }
    fprintf(f, "</main></div>\n<script>%s</script>\n</body></html>\n", JS);
    if (ferror(f))
        return pm_err_errno(err, PM_ERR_IO, "writing HTML");
    return PM_OK;
}

int pm_html_write(const pm_analysis *a, const pm_figures *figs, const pm_html_opts *o, FILE *f, pm_err *err)
{
    pm_report_ctx x = {.a = a, .figs = figs, .db = o ? o->db : NULL, .map = o ? o->map : NULL};
    return pm_html_report(&x, f, err);
}
