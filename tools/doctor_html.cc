// `fjord doctor --html FILE`: one self-contained page (no external URL). The report's JSON is
// embedded in the page and an inline script draws every chart as SVG from it: file sizes per
// bucket against target-file-size, sorted runs per bucket against the triggers, rows per bucket
// against the median, snapshots and bytes over time, what keeps the snapshots and what tags keep.

#include <string>

#include "doctor_report.h"

namespace fjord::cli {

namespace {

// JSON inside <script>: '<', '>' and '&' only occur in strings, where \u escapes are equal.
std::string ScriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

constexpr const char* kStyle = R"CSS(
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
.sev-error { color: #b00020; font-weight: bold; } .sev-warning { color: #a65e00; font-weight: bold; }
.sev-info { color: #555; }
.fix { font-family: monospace; font-size: 0.9em; }
.chart svg { border: 1px solid #eee; background: #fcfcfc; }
.legend { font-size: 0.85em; color: #555; }
)CSS";

constexpr const char* kScript = R"JS(
(function () {
  const R = JSON.parse(document.getElementById('report-data').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function title(e, text) { el('title', {}, e).textContent = text; return e; }
  function bytes(n) {
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB']; let i = 0; let v = n;
    while (v >= 1024 && i < 4) { v /= 1024; i++; }
    return (i ? v.toFixed(1) : String(v)) + ' ' + u[i];
  }
  function bucketName(b) { return (b.partition ? b.partition + ' ' : '') + 'b' + b.bucket; }
  function empty(id, text) {
    const p = document.createElement('p'); p.className = 'empty'; p.textContent = text;
    document.getElementById(id).appendChild(p);
  }
  function svg(id, w, h) {
    return el('svg', {width: w, height: h, viewBox: '0 0 ' + w + ' ' + h},
              document.getElementById(id));
  }
  // A horizontal line across the plot at value y, labelled.
  function rule(s, x0, x1, y, label, color) {
    el('line', {x1: x0, x2: x1, y1: y, y2: y, stroke: color, 'stroke-dasharray': '5,3',
                class: 'rule'}, s);
    el('text', {x: x1 - 4, y: y - 3, 'text-anchor': 'end', 'font-size': 11, fill: color}, s)
        .textContent = label;
  }

  // Findings.
  const tbody = document.querySelector('#findings tbody');
  for (const f of R.findings) {
    const tr = document.createElement('tr'); tr.className = 'finding';
    const subject = [f.partition !== undefined ? (f.partition || '-') : null,
                     f.bucket !== undefined ? 'bucket ' + f.bucket : null,
                     f.consumer !== undefined ? 'consumer ' + f.consumer : null,
                     f.tag !== undefined ? 'tag ' + f.tag : null].filter(x => x).join(', ');
    for (const [cls, text] of [['sev-' + f.severity, f.severity], ['code', f.code],
                               ['subject', subject], ['message', f.message], ['fix', f.fix]]) {
      const td = document.createElement('td'); td.className = cls; td.textContent = text;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
  if (!R.findings.length) empty('findings', 'No findings: the table looks healthy.');

  const left = 70, top = 20, plotH = 220, bottom = 70;
  // File sizes per bucket (log scale) against target-file-size and the small-file size.
  (function () {
    const files = [];
    R.buckets.forEach((b, i) => b.file_sizes.forEach((size, j) =>
        files.push({b: i, size: size, level: b.file_levels[j]})));
    if (!files.length) return empty('chart-file-sizes', 'No data files.');
    // A bar per file up to a few thousand: a page a browser still draws quickly.
    const limit = 4000;
    if (files.length > limit) {
      empty('chart-file-sizes', 'The first ' + limit + ' of ' + files.length + ' files.');
      files.length = limit;
    }
    const target = R.settings.target_file_size, small = R.settings.small_file_size;
    const maxV = Math.max(target, ...files.map(f => f.size)) * 1.5;
    const minV = Math.max(1, Math.min(...files.map(f => f.size)) / 2);
    const barW = Math.max(3, Math.min(18, 900 / (files.length + R.buckets.length)));
    const w = left + (files.length + R.buckets.length) * barW + 20;
    const s = svg('chart-file-sizes', Math.max(w, 400), top + plotH + bottom);
    const y = v => top + plotH - plotH * (Math.log(Math.max(v, minV)) - Math.log(minV)) /
                                   (Math.log(maxV) - Math.log(minV));
    let x = left; let last = -1;
    for (const f of files) {
      if (f.b !== last) {
        if (last >= 0) x += barW;
        el('text', {x: x, y: top + plotH + 14, 'font-size': 10,
                    transform: 'rotate(30 ' + x + ' ' + (top + plotH + 14) + ')'}, s)
            .textContent = bucketName(R.buckets[f.b]);
        last = f.b;
      }
      title(el('rect', {x: x, y: y(f.size), width: barW - 1, height: top + plotH - y(f.size),
                        fill: f.size < small ? '#e08a2c' : '#3d7ab8', class: 'file-bar'}, s),
            bucketName(R.buckets[f.b]) + ' level ' + f.level + ': ' + bytes(f.size));
      x += barW;
    }
    rule(s, left, Math.max(w, 400), y(target), 'target-file-size ' + bytes(target), '#2a7d2a');
    rule(s, left, Math.max(w, 400), y(small), 'small below ' + bytes(small), '#e08a2c');
    el('text', {x: 4, y: top + 10, 'font-size': 11}, s).textContent = 'bytes (log)';
  })();

  // One bar per bucket, against horizontal rules.
  function bucketBars(id, cls, value, rules, unit) {
    if (!R.buckets.length) return empty(id, 'No buckets.');
    const maxV = Math.max(1, ...R.buckets.map(value), ...rules.map(r => r[0])) * 1.15;
    const barW = Math.max(6, Math.min(40, 900 / R.buckets.length));
    const w = Math.max(400, left + R.buckets.length * barW + 20);
    const s = svg(id, w, top + plotH + bottom);
    const y = v => top + plotH - plotH * v / maxV;
    R.buckets.forEach((b, i) => {
      const x = left + i * barW, v = value(b);
      title(el('rect', {x: x, y: y(v), width: barW - 2, height: top + plotH - y(v),
                        fill: '#3d7ab8', class: cls}, s), bucketName(b) + ': ' + unit(v));
      el('text', {x: x, y: top + plotH + 14, 'font-size': 10,
                  transform: 'rotate(30 ' + x + ' ' + (top + plotH + 14) + ')'}, s)
          .textContent = bucketName(b);
    });
    for (const [v, label, color] of rules) rule(s, left, w, y(v), label, color);
  }
  if (R.settings.primary_key) {
    bucketBars('chart-sorted-runs', 'runs-bar', b => b.sorted_runs,
               [[R.settings.compaction_trigger, 'compaction trigger ' + R.settings.compaction_trigger, '#a65e00'],
                [R.settings.stop_trigger, 'stop trigger ' + R.settings.stop_trigger, '#b00020']],
               v => v + ' sorted runs');
  } else {
    bucketBars('chart-sorted-runs', 'runs-bar', b => b.small_files,
               [[R.settings.compaction_min_file_num,
                 'compaction.min.file-num ' + R.settings.compaction_min_file_num, '#a65e00']],
               v => v + ' small files');
  }
  (function () {
    const rows = R.buckets.map(b => b.rows).sort((a, b) => a - b);
    const n = rows.length;
    const median = n ? (n % 2 ? rows[(n - 1) / 2] : (rows[n / 2 - 1] + rows[n / 2]) / 2) : 0;
    bucketBars('chart-skew', 'rows-bar', b => b.rows,
               [[median, 'median ' + median, '#2a7d2a'], [2 * median, '2 x median', '#b00020']],
               v => v + ' rows');
  })();

  // Snapshots and bytes over time: one point per snapshot (coloured by what keeps it), tags as
  // diamonds.
  (function () {
    const snaps = R.snapshots;
    if (!snaps.length) return empty('chart-snapshots', 'No snapshots.');
    const w = 900, s = svg('chart-snapshots', w, top + plotH + bottom);
    const t0 = Math.min(...snaps.map(x => x.time_millis), ...R.tags.map(t => t.time_millis));
    const t1 = Math.max(...snaps.map(x => x.time_millis), t0 + 1);
    const maxB = Math.max(1, ...snaps.map(x => x.bytes), ...R.tags.map(t => t.bytes)) * 1.15;
    const x = t => left + (w - left - 30) * (t - t0) / (t1 - t0);
    const y = v => top + plotH - plotH * v / maxB;
    el('polyline', {points: snaps.map(p => x(p.time_millis) + ',' + y(p.bytes)).join(' '),
                    fill: 'none', stroke: '#9ab'}, s);
    const color = k => k === '' ? '#b00020' : k.startsWith('consumer:') ? '#a65e00' :
                       k === 'retain-min' ? '#2a7d2a' : '#3d7ab8';
    for (const p of snaps) {
      title(el('circle', {cx: x(p.time_millis), cy: y(p.bytes), r: 4, fill: color(p.kept_by),
                          class: 'snap-point'}, s),
            'snapshot ' + p.id + ' (' + p.kind + ', ' + new Date(p.time_millis).toISOString() +
            '): ' + bytes(p.bytes) + ' reachable, ' + bytes(p.own_bytes) + ' only it keeps; ' +
            (p.kept_by ? 'kept by ' + p.kept_by : 'expirable now'));
    }
    for (const t of R.tags) {
      const cx = x(t.time_millis), cy = y(t.bytes);
      title(el('path', {d: 'M' + cx + ' ' + (cy - 6) + 'l6 6l-6 6l-6 -6z', fill: '#7a3db8',
                        class: 'tag-point'}, s),
            'tag ' + t.name + ' (snapshot ' + t.snapshot_id + '): ' + bytes(t.bytes) + ', ' +
            bytes(t.own_bytes) + ' only it keeps');
    }
    el('text', {x: 4, y: top + 10, 'font-size': 11}, s).textContent = 'bytes';
    el('text', {x: left, y: top + plotH + 20, 'font-size': 11}, s).textContent =
        new Date(t0).toISOString();
    el('text', {x: w - 30, y: top + plotH + 20, 'font-size': 11, 'text-anchor': 'end'}, s)
        .textContent = new Date(t1).toISOString();
  })();

  // What keeps the snapshots (snapshot counts by reason) and what tags alone keep (bytes).
  (function () {
    const counts = new Map();
    for (const p of R.snapshots) {
      const k = p.kept_by || 'expirable now';
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    const bars = [...counts.entries()].map(([k, v]) => ({label: k, value: v, cls: 'pin-bar',
                                                         text: v + ' snapshot(s)'}));
    for (const t of R.tags) {
      bars.push({label: 'tag ' + t.name, value: t.own_bytes, cls: 'tag-bar',
                 text: bytes(t.own_bytes) + ' only this tag keeps'});
    }
    if (!bars.length) return empty('chart-pins', 'No snapshots or tags.');
    const rowH = 24, w = 900;
    const s = svg('chart-pins', w, top + bars.length * rowH + 20);
    const maxPin = Math.max(1, ...bars.filter(b => b.cls === 'pin-bar').map(b => b.value));
    const maxTag = Math.max(1, ...bars.filter(b => b.cls === 'tag-bar').map(b => b.value));
    bars.forEach((b, i) => {
      const yy = top + i * rowH, full = w - 200 - 200;
      const width = full * b.value / (b.cls === 'pin-bar' ? maxPin : maxTag);
      el('text', {x: 195, y: yy + 15, 'text-anchor': 'end', 'font-size': 12}, s).textContent =
          b.label;
      title(el('rect', {x: 200, y: yy + 3, width: Math.max(width, 1), height: rowH - 6,
                        fill: b.cls === 'pin-bar' ? '#3d7ab8' : '#7a3db8', class: b.cls}, s),
            b.label + ': ' + b.text);
      el('text', {x: 205 + Math.max(width, 1), y: yy + 15, 'font-size': 12}, s).textContent =
          b.text;
    });
  })();
  document.body.setAttribute('data-rendered', 'yes');
})();
)JS";

}  // namespace

std::string DoctorReportHtml(const DoctorReport& r) {
  std::string title = "fjord doctor: " + HtmlEscape(r.table_path);
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  html +=
      title + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" + title + "</h1>\n";
  html +=
      "<section id=\"findings\"><h2>Findings</h2><table><thead><tr><th>severity</th>"
      "<th>code</th><th>subject</th><th>what</th><th>fix</th></tr></thead><tbody></tbody>"
      "</table></section>\n";
  const char* sections[][3] = {
      {"chart-file-sizes", "File sizes per bucket",
       "One bar per data file of the latest snapshot (log scale), orange when below the "
       "compaction file size; the green line is target-file-size."},
      {"chart-sorted-runs",
       r.settings.primary_key ? "Sorted runs per bucket" : "Small files per bucket",
       r.settings.primary_key
           ? "Sorted runs of each bucket against num-sorted-run.compaction-trigger and "
             "num-sorted-run.stop-trigger (writers stall there)."
           : "Files below the compaction file size per bucket against compaction.min.file-num."},
      {"chart-skew", "Rows per bucket", "Rows of each bucket against the median bucket."},
      {"chart-snapshots", "Snapshots and bytes over time",
       "Each snapshot's reachable data bytes at its commit time: red expirable now, orange kept "
       "by a consumer, green by snapshot.num-retained.min, blue by time or the expire limit; "
       "purple diamonds are tags."},
      {"chart-pins", "What keeps them",
       "Snapshots by what keeps them through an expiration now; the bytes only each tag keeps."},
  };
  for (const auto& s : sections) {
    html += "<section class=\"chart\"><h2>" + std::string(s[1]) + "</h2><p class=\"legend\">" +
            s[2] + "</p><div id=\"" + s[0] + "\"></div></section>\n";
  }
  html += "<script type=\"application/json\" id=\"report-data\">" +
          ScriptSafe(DoctorReportJson(r).dump()) + "</script>\n<script>" + kScript +
          "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace fjord::cli
