//! `rgdev stats merge FILES... [--csv]`: many runs' statistics files (`run --stats-json`)
//! as one table, a row per kernel name and per copy kind of each run, with the
//! configuration parameters that differ between the runs as columns: what a parameter
//! sweep needs at its end.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One row: a kernel name or a copy kind of one run, totalled.
struct Row {
    file: String,
    program: String,
    params: Vec<String>,
    kind: &'static str,
    name: String,
    calls: u64,
    time_ns: u64,
    cycles: u64,
    warp_instructions: u64,
    bytes: u64,
}

/// The configuration as `group.key` = value text.
fn flatten(v: &Value, prefix: &str, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(v, &key, out);
            }
        }
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

fn read(p: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", p.display()))?;
    if !v["kernels"].is_array() || !v["config"].is_object() {
        return Err(format!("{}: not an rgdev statistics file (schema 2: `kernels`, `config`)", p.display()));
    }
    Ok(v)
}

/// CSV field quoting.
fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// `rgdev stats merge`.
pub fn merge(files: &[PathBuf], as_csv: bool) -> ExitCode {
    let mut runs = Vec::new();
    for f in files {
        match read(f) {
            Ok(v) => runs.push((f, v)),
            Err(e) => {
                eprintln!("rgdev stats merge: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let configs: Vec<BTreeMap<String, String>> = runs
        .iter()
        .map(|(_, v)| {
            let mut m = BTreeMap::new();
            flatten(&v["config"], "", &mut m);
            m
        })
        .collect();
    // The parameters that differ between the runs (all keys of any run considered).
    let keys: Vec<String> = configs
        .iter()
        .flat_map(|c| c.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|k| configs.iter().any(|c| c.get(k) != configs[0].get(k)))
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    for ((file, v), cfg) in runs.iter().zip(&configs) {
        let program =
            v["command_line"][0].as_str().map(|p| p.rsplit('/').next().unwrap_or(p)).unwrap_or("").to_string();
        let params: Vec<String> = keys.iter().map(|k| cfg.get(k).cloned().unwrap_or_default()).collect();
        let start = rows.len();
        let mut add = |kind: &'static str, name: String, ns: u64, cycles: u64, warps: u64, bytes: u64| match rows
            [start..]
            .iter_mut()
            .find(|r| r.kind == kind && r.name == name)
        {
            Some(r) => {
                r.calls += 1;
                r.time_ns += ns;
                r.cycles += cycles;
                r.warp_instructions += warps;
                r.bytes += bytes;
            }
            None => rows.push(Row {
                file: file.display().to_string(),
                program: program.clone(),
                params: params.clone(),
                kind,
                name,
                calls: 1,
                time_ns: ns,
                cycles,
                warp_instructions: warps,
                bytes,
            }),
        };
        let u = |x: &Value| x.as_u64().unwrap_or(0);
        for k in v["kernels"].as_array().into_iter().flatten() {
            let dram = u(&k["dram_read_bytes"]) + u(&k["dram_write_bytes"]);
            let name = k["name"].as_str().unwrap_or("").to_string();
            add("kernel", name, u(&k["time_ns"]), u(&k["cycles"]), u(&k["warp_instructions"]), dram);
        }
        for c in v["copies"].as_array().into_iter().flatten() {
            let name = c["kind"].as_str().unwrap_or("copy").to_string();
            add("copy", name, u(&c["time_ns"]), u(&c["cycles"]), 0, u(&c["bytes"]));
        }
    }
    let mut header: Vec<String> = vec!["file".into(), "program".into()];
    // The configuration's `name` is the preset's: a column of its own name, not the rows'.
    header.extend(keys.iter().map(|k| if k == "name" { "preset".to_string() } else { k.clone() }));
    header
        .extend(["type", "name", "calls", "time_ns", "cycles", "warp_instructions", "ipc", "bytes"].map(String::from));
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let ipc = if r.kind == "kernel" && r.cycles > 0 {
                format!("{:.3}", r.warp_instructions as f64 / r.cycles as f64)
            } else {
                String::new()
            };
            let mut line = vec![r.file.clone(), r.program.clone()];
            line.extend(r.params.iter().cloned());
            line.extend([
                r.kind.to_string(),
                r.name.clone(),
                r.calls.to_string(),
                r.time_ns.to_string(),
                r.cycles.to_string(),
                r.warp_instructions.to_string(),
                ipc,
                r.bytes.to_string(),
            ]);
            line
        })
        .collect();
    if as_csv {
        println!("{}", header.iter().map(|h| csv(h)).collect::<Vec<_>>().join(","));
        for line in &table {
            println!("{}", line.iter().map(|f| csv(f)).collect::<Vec<_>>().join(","));
        }
    } else {
        let widths: Vec<usize> = (0..header.len())
            .map(|i| table.iter().map(|l| l[i].len()).chain([header[i].len()]).max().unwrap_or(0))
            .collect();
        let show = |l: &[String]| l.iter().zip(&widths).map(|(f, w)| format!("{f:w$}")).collect::<Vec<_>>().join("  ");
        println!("{}", show(&header).trim_end());
        for line in &table {
            println!("{}", show(line).trim_end());
        }
    }
    ExitCode::SUCCESS
}
