//! `rgdev timeline TRACE.json -o OUT.svg`: a Chrome trace written by `rgdev run --trace`
//! drawn as an SVG Gantt chart: a row per host thread (its NVTX ranges, stacked by depth,
//! and the API calls that waited), a row per stream and for the copy engine (kernels and
//! copies as bars, labelled where they fit, runs of one kernel labelled once), SM
//! occupancy summarized as an aggregate curve over a heat strip (the mean over all SMs of
//! resident warps against the SM's limit), a time axis with round ticks, and a legend of
//! the colours (kernels by name, copies by kind). A row per GPU for its traffic over the
//! interconnect (its peer copies, and its kernels whose loads and stores crossed a link,
//! with the bytes moved), and one for unified memory (each fault service with its
//! migrations, write-backs and prefetches, as ticks).

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

const WIDTH: f64 = 1200.0;
const LABEL: f64 = 230.0;
/// Room right of the plot, so that the last tick's label is not clipped.
const RIGHT: f64 = 40.0;
const ROW: f64 = 26.0;
const CURVE: f64 = 44.0;
const STRIP: f64 = 10.0;
const LEGEND_ROW: f64 = 16.0;
const LEGEND_MAX: usize = 24;
/// Characters of a bar label, per pixel (11 px sans-serif).
const CHAR_PX: f64 = 6.2;

#[derive(Clone)]
struct Bar {
    name: String,
    /// What picks the colour and the legend entry.
    key: String,
    ts: f64,
    dur: f64,
    /// Nesting depth (NVTX ranges), 0 otherwise.
    depth: usize,
    /// A host API call (drawn thin and grey).
    api: bool,
}

/// A row of the chart.
struct Track {
    label: String,
    bars: Vec<Bar>,
}

/// What a trace holds for the chart.
struct Chart {
    host: Vec<Track>,
    device: Vec<Track>,
    /// Occupancy steps per SM: (time, resident warps).
    sms: BTreeMap<String, Vec<(f64, f64)>>,
    /// SMs on the board.
    board_sms: usize,
    max_warps: f64,
}

fn chart(trace: &Value) -> Result<Chart, String> {
    let events = trace.get("traceEvents").and_then(Value::as_array).ok_or("no traceEvents array")?;
    let mut names: BTreeMap<(u64, u64), String> = BTreeMap::new();
    let mut bars: BTreeMap<(u64, u64), Vec<Bar>> = BTreeMap::new();
    let mut sms: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    // Each GPU's traffic over the interconnect, and unified memory's events.
    let (mut links, mut uvm): (BTreeMap<u64, Vec<Bar>>, Vec<Bar>) = (BTreeMap::new(), Vec::new());
    let num = |e: &Value, k: &str| e.get(k).and_then(Value::as_f64);
    for e in events {
        let ph = e.get("ph").and_then(Value::as_str).unwrap_or("");
        let pid = e.get("pid").and_then(Value::as_u64).unwrap_or(0);
        let tid = e.get("tid").and_then(Value::as_u64).unwrap_or(0);
        let name = e.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let cat = e.get("cat").and_then(Value::as_str).unwrap_or("");
        match ph {
            "M" if name == "thread_name" => {
                let label = e.pointer("/args/name").and_then(Value::as_str).unwrap_or("").to_string();
                names.insert((pid, tid), label);
            }
            // The host is process 0; GPU g's tracks are process 1 + 2g, its SMs' counters 2 + 2g.
            "X" if pid == 0 || pid % 2 == 1 => {
                let (Some(ts), Some(dur)) = (num(e, "ts"), num(e, "dur")) else { continue };
                let api = cat == "api";
                if api && dur <= 0.0 {
                    continue; // a call that only queued work: the flow arrows in Perfetto show it
                }
                let key = match cat {
                    "copy" => match e.pointer("/args/kind").and_then(Value::as_str) {
                        Some("Memset") => "memset".into(),
                        Some(k) => format!("{k} copy"),
                        None => "copy".into(),
                    },
                    "api" => "API call (waiting)".into(),
                    "migration" => "page migration".into(),
                    "nvtx" => format!("NVTX {name}"),
                    _ => name.clone(),
                };
                let gpu = pid.saturating_sub(1) / 2;
                let peer_bytes = e.pointer("/args/peer_bytes").and_then(Value::as_u64).unwrap_or(0);
                if cat == "copy" && e.pointer("/args/kind").and_then(Value::as_str) == Some("PtoP") {
                    let bar = Bar { name: name.clone(), key: "peer copy".into(), ts, dur, depth: 0, api: false };
                    links.entry(gpu).or_default().push(bar);
                } else if cat == "kernel" && peer_bytes > 0 {
                    let name = format!("{name}: {} over links", bytes_label(peer_bytes));
                    let bar = Bar { name, key: "peer loads and stores".into(), ts, dur, depth: 0, api: false };
                    links.entry(gpu).or_default().push(bar);
                }
                bars.entry((pid, tid)).or_default().push(Bar { name, key, ts, dur, depth: 0, api });
            }
            // Unified memory's instants: a fault service (pages in, evictions), a write-back,
            // a prefetch.
            "i" if cat == "uvm" => {
                let Some(ts) = num(e, "ts") else { continue };
                let key = if name.contains("prefetch") {
                    "prefetch"
                } else if name.contains("back to the host") {
                    "pages back to the host"
                } else if name.contains("cancelled") {
                    "fault service (cancelled)"
                } else {
                    "fault service (migrations)"
                };
                uvm.push(Bar { name, key: key.into(), ts, dur: 0.0, depth: 0, api: false });
            }
            "C" if pid >= 2 && pid % 2 == 0 => {
                let (Some(ts), Some(w)) = (num(e, "ts"), e.pointer("/args/warps").and_then(Value::as_f64)) else {
                    continue;
                };
                sms.entry(format!("{pid}/{name}")).or_default().push((ts, w));
            }
            _ => {}
        }
    }
    let max_warps = trace.pointer("/otherData/max_warps_per_sm").and_then(Value::as_f64).unwrap_or(64.0);
    // The mean is over every GPU's SMs (those never sampled held no warps).
    let gpus = trace.pointer("/otherData/gpus").and_then(Value::as_u64).unwrap_or(1) as usize;
    let board_sms = gpus * trace.pointer("/otherData/sms").and_then(Value::as_u64).unwrap_or(0) as usize;
    let (mut host, mut device) = (Vec::new(), Vec::new());
    for ((pid, tid), mut b) in bars {
        b.sort_by(|x, y| x.ts.total_cmp(&y.ts).then(y.dur.total_cmp(&x.dur)));
        // Depths of nested NVTX ranges (API calls stay at the bottom of the row).
        let mut open: Vec<f64> = Vec::new();
        for bar in b.iter_mut().filter(|b| !b.api) {
            while open.last().is_some_and(|&end| end <= bar.ts + 1e-6) {
                open.pop();
            }
            bar.depth = open.len();
            open.push(bar.ts + bar.dur);
        }
        let mut label = names.get(&(pid, tid)).cloned().unwrap_or(format!("track {tid}"));
        if gpus > 1 && pid > 0 {
            label = format!("GPU {}: {label}", pid / 2);
        }
        let t = Track { label, bars: b };
        if pid == 0 { host.push(t) } else { device.push(t) }
    }
    for (g, mut bars) in links {
        bars.sort_by(|x, y| x.ts.total_cmp(&y.ts));
        device.push(Track { label: format!("GPU {g}: links (peer traffic)"), bars });
    }
    if !uvm.is_empty() {
        device.push(Track { label: "unified memory (migrations)".into(), bars: uvm });
    }
    Ok(Chart { host, device, board_sms: board_sms.max(sms.len()), sms, max_warps: max_warps.max(1.0) })
}

/// Bytes as B, KiB or MiB.
fn bytes_label(b: u64) -> String {
    match b {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn color(key: &str) -> String {
    // Fixed colours for what every trace has; kernels and ranges by a hash of the name.
    let fixed = [
        ("API call (waiting)", "#999"),
        ("HtoD copy", "#2f8fd0"),
        ("DtoH copy", "#2fb59a"),
        ("DtoD copy", "#e08a2a"),
        ("HtoH copy", "#9a7b5a"),
        ("PtoP copy", "#b04fc0"),
        ("memset", "#8a9a3a"),
    ];
    if let Some((_, c)) = fixed.iter().find(|(k, _)| *k == key) {
        return (*c).into();
    }
    let h = key.bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    format!("hsl({}, 55%, 50%)", h % 360)
}

/// A round tick step (1, 2 or 5 times a power of ten) giving about `target` ticks.
fn tick_step(span: f64, target: f64) -> f64 {
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    mag * if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// A time in microseconds as a tick label, in the unit the step reads best in, with as
/// many decimals as the step needs.
fn time_label(us: f64, step: f64) -> String {
    let (scale, unit) = if step >= 1000.0 {
        (1e-3, "ms")
    } else if step >= 1.0 {
        (1.0, "us")
    } else {
        (1e3, "ns")
    };
    let s = step * scale;
    let decimals = if s >= 1.0 { 0 } else { (-s.log10().floor()) as usize };
    format!("{:.*} {unit}", decimals, us * scale)
}

/// Mean occupancy (0..1) over all SMs in each pixel column of the plot.
fn occupancy(c: &Chart, t0: f64, t1: f64, cols: usize) -> Vec<f64> {
    let (sms, max_warps) = (&c.sms, c.max_warps);
    let span = t1 - t0;
    let mut total = vec![0.0; cols];
    for steps in sms.values() {
        let mut k = 0;
        for (px, acc) in total.iter_mut().enumerate() {
            let (a, b) = (t0 + span * px as f64 / cols as f64, t0 + span * (px + 1) as f64 / cols as f64);
            while k + 1 < steps.len() && steps[k + 1].0 <= a {
                k += 1;
            }
            let mut j = k;
            while j < steps.len() && steps[j].0 < b {
                let from = steps[j].0.max(a);
                let to = steps.get(j + 1).map_or(t1, |n| n.0).min(b);
                if to > from {
                    *acc += steps[j].1 / max_warps * (to - from) / (b - a);
                }
                j += 1;
            }
        }
    }
    let n = c.board_sms.max(1) as f64;
    total.into_iter().map(|v| (v / n).min(1.0)).collect()
}

/// The SVG for a trace.
pub fn render(trace: &Value) -> Result<String, String> {
    let c = chart(trace)?;
    let rows: Vec<&Track> = c.host.iter().chain(&c.device).collect();
    let (mut t0, mut t1) = (f64::MAX, f64::MIN);
    for b in rows.iter().flat_map(|r| &r.bars) {
        t0 = t0.min(b.ts);
        t1 = t1.max(b.ts + b.dur);
    }
    for &(ts, _) in c.sms.values().flatten() {
        t0 = t0.min(ts);
        t1 = t1.max(ts);
    }
    if t0 > t1 {
        return Err("the trace has no kernels, copies or occupancy samples".into());
    }
    let span = (t1 - t0).max(1e-3);
    let plot = WIDTH - LABEL - RIGHT;
    let x = |t: f64| LABEL + (t - t0) / span * plot;
    // The legend: every colour key, in order of first appearance (at most LEGEND_MAX).
    let mut keys: Vec<&str> = Vec::new();
    for b in rows.iter().flat_map(|r| &r.bars) {
        if !keys.contains(&b.key.as_str()) {
            keys.push(&b.key);
        }
    }
    let shown = keys.len().min(LEGEND_MAX);
    let legend_cols = 3;
    let legend_rows = shown.div_ceil(legend_cols) + usize::from(keys.len() > LEGEND_MAX);
    let top = 40.0;
    let occ_top = top + rows.len() as f64 * ROW + 12.0;
    let occ_h = if c.sms.is_empty() { 0.0 } else { CURVE + STRIP + 24.0 };
    let axis = occ_top + occ_h + 8.0;
    let legend_top = axis + 40.0;
    let height = legend_top + legend_rows as f64 * LEGEND_ROW + 12.0;

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(w, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let title = trace.pointer("/otherData/preset").and_then(Value::as_str).unwrap_or("rgdev");
    let _ = writeln!(w, r#"<text x="8" y="20" font-size="14">rgdev timeline ({}), simulated time</text>"#, esc(title));
    for (i, row) in rows.iter().enumerate() {
        let y = top + i as f64 * ROW;
        let label = row.label.replace("context ", "ctx ").replace(" (channel ", " (ch ");
        let _ = writeln!(w, r#"<text x="8" y="{:.1}">{}</text>"#, y + 16.0, esc(&ellipsize(&label, LABEL - 12.0)));
        let _ = writeln!(
            w,
            r##"<line x1="{LABEL}" x2="{}" y1="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            WIDTH - RIGHT,
            y + ROW,
            y + ROW
        );
        draw_row(w, row, y, &x, span, plot);
    }
    if !c.sms.is_empty() {
        let cols = plot.ceil() as usize;
        let occ = occupancy(&c, t0, t1, cols);
        let _ =
            writeln!(w, r#"<text x="8" y="{:.1}">SM occupancy, mean of {} SMs</text>"#, occ_top + 14.0, c.board_sms);
        let _ = writeln!(
            w,
            r##"<text x="8" y="{:.1}" font-size="9" fill="#555">resident warps of {} per SM;</text><text x="8" y="{:.1}" font-size="9" fill="#555">the strip below: darker is fuller</text>"##,
            occ_top + 27.0,
            c.max_warps,
            occ_top + 38.0
        );
        // The aggregate curve: an area from 0 to 100%.
        let base = occ_top + CURVE;
        let mut pts = format!("{LABEL:.1},{base:.1}");
        for (px, v) in occ.iter().enumerate() {
            let _ = write!(pts, " {:.1},{:.1}", LABEL + px as f64 + 0.5, base - v * CURVE);
        }
        let _ = write!(pts, " {:.1},{base:.1}", LABEL + cols as f64);
        let _ = writeln!(w, r##"<polygon points="{pts}" fill="#9bb7e0" stroke="#1e50a0" stroke-width="0.8"/>"##);
        for (frac, label) in [(0.0, "0%"), (0.5, "50%"), (1.0, "100%")] {
            let yy = base - frac * CURVE;
            let _ = writeln!(
                w,
                r##"<line x1="{LABEL}" x2="{}" y1="{yy:.1}" y2="{yy:.1}" stroke="#ccc" stroke-dasharray="2,3"/><text x="{}" y="{:.1}" font-size="9">{label}</text>"##,
                WIDTH - RIGHT,
                WIDTH - RIGHT + 3.0,
                yy + 3.0
            );
        }
        // The heat strip: the same mean in 8 shades; equal neighbours merge.
        let sy = base + 6.0;
        let mut px = 0;
        while px < cols {
            let level = (occ[px] * 8.0).round() as u32;
            let run = occ[px..].iter().take_while(|&&v| (v * 8.0).round() as u32 == level).count();
            if level > 0 {
                let _ = writeln!(
                    w,
                    r#"<rect x="{:.1}" y="{sy:.1}" width="{run}" height="{STRIP}" fill="rgb(30,80,160)" fill-opacity="{:.3}"/>"#,
                    LABEL + px as f64,
                    f64::from(level) / 8.0
                );
            }
            px += run;
        }
        let _ = writeln!(
            w,
            r##"<rect x="{LABEL}" y="{sy:.1}" width="{plot:.1}" height="{STRIP}" fill="none" stroke="#ccc"/>"##
        );
    }
    // The axis: round ticks inside the span.
    let _ = writeln!(w, r#"<line x1="{LABEL}" x2="{}" y1="{axis}" y2="{axis}" stroke="black"/>"#, WIDTH - RIGHT);
    let step = tick_step(span, 8.0);
    let mut k = (t0 / step).ceil();
    while k * step <= t1 + step * 1e-9 {
        let t = k * step;
        let tx = x(t);
        let _ = writeln!(w, r#"<line x1="{tx:.1}" x2="{tx:.1}" y1="{axis}" y2="{}" stroke="black"/>"#, axis + 5.0);
        let _ =
            writeln!(w, r#"<text x="{tx:.1}" y="{}" text-anchor="middle">{}</text>"#, axis + 18.0, time_label(t, step));
        k += 1.0;
    }
    // The legend.
    let col_w = (WIDTH - 16.0) / legend_cols as f64;
    for (i, key) in keys.iter().take(shown).enumerate() {
        let (lx, ly) = (8.0 + (i % legend_cols) as f64 * col_w, legend_top + (i / legend_cols) as f64 * LEGEND_ROW);
        let _ = writeln!(
            w,
            r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="10" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            ly - 9.0,
            color(key),
            lx + 16.0,
            ly,
            esc(&ellipsize(key, col_w - 24.0))
        );
    }
    if keys.len() > LEGEND_MAX {
        let ly = legend_top + (shown.div_ceil(legend_cols)) as f64 * LEGEND_ROW;
        let _ = writeln!(w, r#"<text x="8" y="{ly:.1}">and {} more</text>"#, keys.len() - LEGEND_MAX);
    }
    let _ = writeln!(w, "</svg>");
    Ok(out)
}

/// `s` cut to fit `px` pixels, with an ellipsis when cut.
fn ellipsize(s: &str, px: f64) -> String {
    let max = (px / CHAR_PX).floor().max(1.0) as usize;
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// One row's bars: ranges stacked by depth, API calls thin at the bottom, and labels on
/// runs of bars of one name that touch (a pixel apart at most) where the run is wide
/// enough to hold the name.
fn draw_row(w: &mut String, row: &Track, y: f64, x: &dyn Fn(f64) -> f64, span: f64, plot: f64) {
    let depth = row.bars.iter().filter(|b| !b.api).map(|b| b.depth + 1).max().unwrap_or(1);
    let band = (ROW - 6.0) / depth as f64;
    for b in &row.bars {
        let (bx, bw) = (x(b.ts), (b.dur / span * plot).max(1.0));
        let (by, bh) = if b.api { (y + ROW - 7.0, 4.0) } else { (y + 3.0 + b.depth as f64 * band, band - 1.0) };
        let _ = writeln!(
            w,
            r#"<rect x="{bx:.1}" y="{by:.1}" width="{bw:.1}" height="{bh:.1}" fill="{}"><title>{} ({:.3} us)</title></rect>"#,
            color(&b.key),
            esc(&b.name),
            b.dur
        );
    }
    // Labels: runs of same-named bars at one depth.
    let mut i = 0;
    let bars: Vec<&Bar> = row.bars.iter().filter(|b| !b.api).collect();
    while i < bars.len() {
        let first = bars[i];
        let mut j = i + 1;
        let mut end = x(first.ts + first.dur);
        while j < bars.len() && bars[j].name == first.name && bars[j].depth == first.depth && x(bars[j].ts) - end <= 1.0
        {
            end = end.max(x(bars[j].ts + bars[j].dur));
            j += 1;
        }
        let n = j - i;
        let label = if n > 1 { format!("{} ×{n}", first.name) } else { first.name.clone() };
        let (bx, bw) = (x(first.ts), end - x(first.ts));
        if bw > CHAR_PX * label.chars().count() as f64 + 6.0 && band >= 10.0 {
            let _ = writeln!(
                w,
                r#"<text x="{:.1}" y="{:.1}" fill="white">{}</text>"#,
                bx + 3.0,
                y + 3.0 + first.depth as f64 * band + band / 2.0 + 4.0,
                esc(&label)
            );
        }
        i = j;
    }
}

/// The command.
pub fn main(input: &Path, output: &Path) -> ExitCode {
    let (i, o) = (input.display(), output.display());
    let svg = std::fs::read_to_string(input)
        .map_err(|e| format!("{i}: {e}"))
        .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| format!("{i}: not JSON: {e}")))
        .and_then(|v| render(&v).map_err(|e| format!("{i}: {e}")));
    match svg.and_then(|s| std::fs::write(output, s).map_err(|e| format!("{o}: {e}"))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rgdev timeline: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(10.0, 8.0), 2.0);
        assert_eq!(tick_step(1234.0, 8.0), 200.0);
        assert_eq!(tick_step(0.37, 8.0), 0.05);
        assert_eq!(time_label(1200.0, 200.0), "1200 us");
        assert_eq!(time_label(4000.0, 1000.0), "4 ms");
        assert_eq!(time_label(2500.0, 500.0), "2500 us");
        assert_eq!(time_label(0.15, 0.05), "150 ns");
        assert_eq!(time_label(3.5, 0.5), "3500 ns");
        assert_eq!(time_label(7000.0, 2000.0), "7 ms");
        assert_eq!(time_label(1500.0, 500.0), "1500 us");
    }

    #[test]
    fn long_labels_are_cut() {
        assert_eq!(ellipsize("short", 100.0), "short");
        let cut = ellipsize(&"x".repeat(100), 62.0);
        assert_eq!(cut.chars().count(), 10);
        assert!(cut.ends_with('…'));
    }
}
