//! `rgdev timeline TRACE.json -o OUT.svg`: a Chrome trace written by `rgdev run --trace`
//! drawn as an SVG Gantt chart: a row per channel and for the copy engine (kernels and
//! copies as bars, with their names), then a strip per SM shaded by resident warps.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

const WIDTH: f64 = 1200.0;
const LABEL: f64 = 170.0;
const ROW: f64 = 26.0;
const SM_ROW: f64 = 7.0;

struct Bar {
    name: String,
    /// What picks the colour (a copy's channel), when not the name.
    key: Option<String>,
    ts: f64,
    dur: f64,
}

/// The tracks of a trace: (label, bars) per track, SM occupancy steps, the warp limit.
type Tracks = (Vec<(String, Vec<Bar>)>, BTreeMap<String, Vec<(f64, f64)>>, f64);

fn tracks(trace: &Value) -> Result<Tracks, String> {
    let events = trace.get("traceEvents").and_then(Value::as_array).ok_or("no traceEvents array")?;
    let mut names: BTreeMap<u64, String> = BTreeMap::new();
    let mut bars: BTreeMap<u64, Vec<Bar>> = BTreeMap::new();
    let mut sms: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let num = |e: &Value, k: &str| e.get(k).and_then(Value::as_f64);
    for e in events {
        let ph = e.get("ph").and_then(Value::as_str).unwrap_or("");
        let pid = e.get("pid").and_then(Value::as_u64).unwrap_or(0);
        let tid = e.get("tid").and_then(Value::as_u64).unwrap_or(0);
        let name = e.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        match ph {
            "M" if name == "thread_name" && pid == 1 => {
                let label = e.pointer("/args/name").and_then(Value::as_str).unwrap_or("").to_string();
                names.insert(tid, label);
            }
            "X" if pid == 1 => {
                let (Some(ts), Some(dur)) = (num(e, "ts"), num(e, "dur")) else { continue };
                let key = e.pointer("/args/channel").and_then(Value::as_u64).map(|c| format!("channel {c}"));
                bars.entry(tid).or_default().push(Bar { name, ts, dur, key });
            }
            "C" if pid == 2 => {
                let (Some(ts), Some(w)) = (num(e, "ts"), e.pointer("/args/warps").and_then(Value::as_f64)) else {
                    continue;
                };
                sms.entry(name).or_default().push((ts, w));
            }
            _ => {}
        }
    }
    let max_warps = trace.pointer("/otherData/max_warps_per_sm").and_then(Value::as_f64).unwrap_or(64.0);
    let rows =
        bars.into_iter().map(|(tid, b)| (names.get(&tid).cloned().unwrap_or(format!("track {tid}")), b)).collect();
    Ok((rows, sms, max_warps.max(1.0)))
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn color(name: &str) -> String {
    let h = name.bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    format!("hsl({}, 55%, 55%)", h % 360)
}

/// The SVG for a trace.
pub fn render(trace: &Value) -> Result<String, String> {
    let (rows, sms, max_warps) = tracks(trace)?;
    let mut t0 = f64::MAX;
    let mut t1 = f64::MIN;
    for (_, bars) in &rows {
        for b in bars {
            t0 = t0.min(b.ts);
            t1 = t1.max(b.ts + b.dur);
        }
    }
    for steps in sms.values() {
        for &(ts, _) in steps {
            t0 = t0.min(ts);
            t1 = t1.max(ts);
        }
    }
    if t0 > t1 {
        return Err("the trace has no kernels, copies or occupancy samples".into());
    }
    let span = (t1 - t0).max(1e-3);
    let plot = WIDTH - LABEL - 10.0;
    let x = |t: f64| LABEL + (t - t0) / span * plot;
    let top = 40.0;
    let sm_top = top + rows.len() as f64 * ROW + 24.0;
    let height = sm_top + sms.len() as f64 * SM_ROW + 50.0;
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(w, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let title = trace.pointer("/otherData/preset").and_then(Value::as_str).unwrap_or("rgdev");
    let _ = writeln!(w, r#"<text x="8" y="20" font-size="14">rgdev timeline ({}), simulated time</text>"#, esc(title));
    for (i, (label, bars)) in rows.iter().enumerate() {
        let y = top + i as f64 * ROW;
        let _ = writeln!(w, r#"<text x="8" y="{:.1}">{}</text>"#, y + 16.0, esc(label));
        let _ = writeln!(
            w,
            r##"<line x1="{LABEL}" x2="{}" y1="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            WIDTH - 10.0,
            y + ROW,
            y + ROW
        );
        for b in bars {
            let (bx, bw) = (x(b.ts), (b.dur / span * plot).max(1.0));
            let _ = writeln!(
                w,
                r#"<rect x="{bx:.1}" y="{:.1}" width="{bw:.1}" height="{:.1}" fill="{}"><title>{} ({:.3} us)</title></rect>"#,
                y + 3.0,
                ROW - 6.0,
                color(b.key.as_deref().unwrap_or(&b.name)),
                esc(&b.name),
                b.dur
            );
            if bw > 7.0 * b.name.len() as f64 {
                let _ = writeln!(
                    w,
                    r#"<text x="{:.1}" y="{:.1}" fill="white">{}</text>"#,
                    bx + 3.0,
                    y + 17.0,
                    esc(&b.name)
                );
            }
        }
    }
    if !sms.is_empty() {
        let _ = writeln!(
            w,
            r#"<text x="8" y="{:.1}">SM occupancy (darker: more resident warps, of {max_warps})</text>"#,
            sm_top - 8.0
        );
    }
    for (i, (name, steps)) in sms.iter().enumerate() {
        let y = sm_top + i as f64 * SM_ROW;
        if i % 8 == 0 {
            let _ = writeln!(w, r#"<text x="8" y="{:.1}" font-size="8">{}</text>"#, y + 6.0, esc(name));
        }
        // Average resident warps per pixel column, in 8 shades; equal neighbours merge.
        let cols = plot.ceil() as usize;
        let mut shade = vec![0u32; cols];
        let mut k = 0;
        for (px, s) in shade.iter_mut().enumerate() {
            let (a, b) = (t0 + span * px as f64 / plot, t0 + span * (px + 1) as f64 / plot);
            while k + 1 < steps.len() && steps[k + 1].0 <= a {
                k += 1;
            }
            let mut acc = 0.0;
            let mut j = k;
            while j < steps.len() && steps[j].0 < b {
                let from = steps[j].0.max(a);
                let to = steps.get(j + 1).map_or(t1, |n| n.0).min(b);
                if to > from && steps[j].0 <= b {
                    acc += steps[j].1 * (to - from);
                }
                j += 1;
            }
            let avg = acc / (b - a);
            *s = ((avg / max_warps).min(1.0) * 8.0).round() as u32;
        }
        let mut px = 0;
        while px < cols {
            let level = shade[px];
            let run = shade[px..].iter().take_while(|&&v| v == level).count();
            if level > 0 {
                let _ = writeln!(
                    w,
                    r#"<rect x="{:.1}" y="{y:.1}" width="{run}" height="{:.1}" fill="rgb(30,80,160)" fill-opacity="{:.3}"/>"#,
                    LABEL + px as f64,
                    SM_ROW - 1.0,
                    level as f64 / 8.0
                );
            }
            px += run;
        }
    }
    let axis = height - 30.0;
    let _ = writeln!(w, r#"<line x1="{LABEL}" x2="{}" y1="{axis}" y2="{axis}" stroke="black"/>"#, WIDTH - 10.0);
    for k in 0..=8 {
        let t = t0 + span * k as f64 / 8.0;
        let tx = x(t);
        let _ = writeln!(w, r#"<line x1="{tx:.1}" x2="{tx:.1}" y1="{axis}" y2="{}" stroke="black"/>"#, axis + 5.0);
        let _ = writeln!(w, r#"<text x="{tx:.1}" y="{}" text-anchor="middle">{:.2} us</text>"#, axis + 18.0, t);
    }
    let _ = writeln!(w, "</svg>");
    Ok(out)
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
