//! Device presets: the built-in ones by name, and TOML files a user can copy and edit.
//!
//! A file sets parameters of [`DeviceConfig::KEYS`], grouped in tables as the model groups
//! them (`[l2] bytes = ...` is the key `l2.bytes`), starting from a built-in preset named by
//! `base` (default `gv100`):
//!
//! ```toml
//! base = "gv100"
//! mode = "functional"
//!
//! [board]
//! sms = 40
//!
//! [dram]
//! mbps = 450000
//! ```
//!
//! `base` may also name another preset file (a path, relative to this file's directory),
//! which this one then edits. Dotted keys (`board.sms = 40`) are the same thing in TOML. The flat keys of earlier
//! rgdev versions (`sms = 40`, `dram_mbps = 450000`: [`OLD_KEYS`](fake_pci::config::OLD_KEYS)) are still accepted.
//!
//! `rgdev preset show NAME` prints a complete file to start from.

use fake_pci::DeviceConfig;
use fake_pci::config::{PRESETS, Value};

/// The environment variable that selects a preset (a name or a path) for every device
/// opened with default options, and for programs run against libcuda.so.1.
pub const ENV: &str = "RGDEV_PRESET";

/// A built-in preset by name, or a TOML file by path (anything with a `/` or ending in
/// `.toml`), validated.
pub fn load(spec: &str) -> Result<DeviceConfig, String> {
    if is_file(spec) {
        return load_file(std::path::Path::new(spec), 0);
    }
    let cfg = DeviceConfig::preset(spec).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
        format!("no preset named `{spec}` (built in: {}; or give a .toml file)", names.join(", "))
    })?;
    Ok(cfg)
}

/// Whether a preset spec names a file rather than a built-in preset.
fn is_file(spec: &str) -> bool {
    spec.contains('/') || spec.ends_with(".toml")
}

/// How many files a chain of `base = FILE` may pass through (a longer one is a cycle).
const MAX_BASES: usize = 16;

/// A preset file, its `base` resolved relative to its directory (`depth` files deep).
fn load_file(path: &std::path::Path, depth: usize) -> Result<DeviceConfig, String> {
    let shown = path.display();
    if depth >= MAX_BASES {
        return Err(format!("{shown}: `base` files nest more than {MAX_BASES} deep (a cycle?)"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    parse(&text, &|base| load_file(&dir.join(base), depth + 1)).map_err(|e| format!("{shown}: {e}"))
}

/// Apply `key=value` overrides (`rgdev --set`, e.g. `l2.bytes=1048576` or
/// `mode=functional`): a number sets an integer parameter, anything else a string one; the
/// result is validated.
pub fn apply_sets(cfg: &mut DeviceConfig, sets: &[String]) -> Result<(), String> {
    for s in sets {
        let (key, value) = s.split_once('=').ok_or_else(|| format!("--set {s}: expected KEY=VALUE"))?;
        let (key, value) = (key.trim(), value.trim());
        let v = match value.parse::<i64>() {
            Ok(i) => toml::Value::Integer(i),
            Err(_) => toml::Value::String(value.trim_matches('"').to_string()),
        };
        set(cfg, key, &v).map_err(|e| format!("--set {s}: {e}"))?;
    }
    cfg.validate().map_err(|e| format!("--set: {e}"))
}

/// The configuration `RGDEV_PRESET` selects, or the default one when it is unset.
pub fn from_env() -> Result<DeviceConfig, String> {
    match std::env::var(ENV) {
        Ok(spec) if !spec.is_empty() => load(&spec).map_err(|e| format!("{ENV}: {e}")),
        _ => Ok(DeviceConfig::default()),
    }
}

/// Parse a preset file (see the module documentation); a `base` that is a file is refused
/// (no directory to resolve it from: use [`load`]).
pub fn from_toml(text: &str) -> Result<DeviceConfig, String> {
    parse(text, &|base| Err(format!("`base`: `{base}` is a file; load the preset from a file")))
}

/// Parse a preset, `file_base` loading a `base` that names a file.
fn parse(text: &str, file_base: &dyn Fn(&str) -> Result<DeviceConfig, String>) -> Result<DeviceConfig, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string().trim_end().to_string())?;
    let base = match table.get("base") {
        None => "gv100",
        Some(toml::Value::String(b)) => b.as_str(),
        Some(_) => return Err("`base` must name a built-in preset or a preset file".into()),
    };
    let mut cfg = if is_file(base) {
        file_base(base)?
    } else {
        DeviceConfig::preset(base).ok_or_else(|| format!("`base`: no preset named `{base}`"))?
    };
    for (key, v) in &table {
        match v {
            _ if key == "base" => {}
            toml::Value::Table(group) if DeviceConfig::GROUPS.iter().any(|&(g, _)| g == key) => {
                for (field, v) in group {
                    set(&mut cfg, &format!("{key}.{field}"), v)?;
                }
            }
            _ => set(&mut cfg, key, v)?,
        }
    }
    cfg.validate().map_err(|e| e.to_string())?;
    Ok(cfg)
}

/// Set one parameter from a TOML value.
fn set(cfg: &mut DeviceConfig, key: &str, v: &toml::Value) -> Result<(), String> {
    let v = match v {
        toml::Value::Integer(i) if *i >= 0 => Value::Int(*i as u64),
        toml::Value::Integer(_) => return Err(format!("parameter `{key}`: must not be negative")),
        toml::Value::String(s) => Value::Str(s.clone()),
        toml::Value::Table(_) => return Err(format!("unknown parameter group `[{key}]`")),
        _ => return Err(format!("parameter `{key}`: expected an integer or a string")),
    };
    cfg.set(key, &v).map_err(|e| e.to_string())
}

/// A complete preset file for `cfg`, every parameter with its description, one table per
/// group.
pub fn to_toml(cfg: &DeviceConfig) -> String {
    let mut out = format!(
        "# rgdev device preset (load with RGDEV_PRESET=FILE.toml or --preset FILE.toml)\nbase = \"{}\"\n",
        base_of(cfg)
    );
    let mut group = "";
    for (key, doc) in DeviceConfig::KEYS {
        let value = match cfg.get(key) {
            Some(Value::Int(i)) => i.to_string(),
            Some(Value::Str(s)) => format!("\"{s}\""),
            None => continue,
        };
        let (g, field) = key.split_once('.').unwrap_or(("", key));
        if g != group {
            group = g;
            let about = DeviceConfig::GROUPS.iter().find(|&&(n, _)| n == g).map_or("", |&(_, d)| d);
            out.push_str(&format!("\n# {}\n[{g}]\n", about.trim()));
        }
        out.push_str(&format!("\n# {}\n{field} = {value}\n", doc.trim()));
    }
    out
}

fn base_of(cfg: &DeviceConfig) -> &'static str {
    PRESETS.iter().map(|p| p.0).find(|&n| n == cfg.name).unwrap_or("gv100")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_round_trip_through_toml() {
        for (name, _) in PRESETS {
            let cfg = load(name).unwrap();
            assert_eq!(from_toml(&to_toml(&cfg)).unwrap(), cfg, "{name}");
        }
    }

    #[test]
    fn files_start_from_a_base_and_reject_nonsense() {
        let c = from_toml("base = \"gf100\"\nsms = 4\nmode = \"functional\"\n").unwrap();
        assert_eq!((c.board.sms, c.board.clock_mhz, c.mode), (4, 1401, fake_pci::config::Mode::Functional));
        assert!(from_toml("sms = 0").unwrap_err().contains("sms"));
        assert!(from_toml("smz = 3").unwrap_err().contains("unknown parameter `smz`"));
        assert!(from_toml("sms = -3").unwrap_err().contains("negative"));
        assert!(from_toml("sms = \"many\"").unwrap_err().contains("sms"));
        assert!(from_toml("base = \"h100\"").unwrap_err().contains("h100"));
        assert!(from_toml("board.sms = [1]").is_err());
        assert!(from_toml("this is not toml").is_err());
        assert!(load("nope").unwrap_err().contains("gv100"));
        // Files written for the flat keys of earlier versions load the same.
        let old = from_toml("base = \"gf100\"\nsms = 4\ndram_mbps = 1000\nshared_per_sm = 4096\n").unwrap();
        let new = from_toml("base = \"gf100\"\nboard.sms = 4\ndram.mbps = 1000\nshared.bytes = 4096\n").unwrap();
        assert_eq!(old, new);
        assert_eq!((new.board.sms, new.dram.mbps, new.shared.bytes), (4, 1000, 4096));
        assert!(load("/nonexistent/p.toml").unwrap_err().contains("/nonexistent/p.toml"));
    }

    #[test]
    fn files_build_on_files_and_sets_override() {
        let dir = std::env::temp_dir().join(format!("rgdev-preset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("small.toml"), "base = \"gf100\"\nboard.sms = 4\n").unwrap();
        std::fs::write(dir.join("smaller.toml"), "base = \"small.toml\"\nl2.bytes = 65536\n").unwrap();
        let c = load(dir.join("smaller.toml").to_str().unwrap()).unwrap();
        assert_eq!((c.board.sms, c.l2.bytes, c.board.clock_mhz), (4, 65536, 1401));
        std::fs::write(dir.join("loop.toml"), "base = \"loop.toml\"\n").unwrap();
        assert!(load(dir.join("loop.toml").to_str().unwrap()).unwrap_err().contains("deep"));
        let mut c = load("gv100").unwrap();
        apply_sets(&mut c, &["board.sms=8".into(), "mode=functional".into()]).unwrap();
        assert_eq!((c.board.sms, c.mode), (8, fake_pci::config::Mode::Functional));
        assert!(apply_sets(&mut c, &["board.sms".into()]).unwrap_err().contains("KEY=VALUE"));
        assert!(apply_sets(&mut c, &["board.smz=3".into()]).unwrap_err().contains("smz"));
        assert!(apply_sets(&mut c, &["board.sms=0".into()]).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
