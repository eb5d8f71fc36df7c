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
//!
//! A system of several GPUs ([`SystemConfig`]) is a built-in system preset
//! (`gv100x2`, `gv100x4`, `dgx1`: [`SYSTEM_PRESETS`]) or a file with a `[system]` table:
//!
//! ```toml
//! [system]
//! base = "gv100x4"        # a system preset to start from (default: one GPU of `gpu`)
//! gpus = 4                # how many GPUs (default: the base's)
//! gpu = "my-gpu.toml"     # every GPU's device preset (default: the base's)
//! unified = true          # present them as one logical GPU (default: the base's)
//!
//! [interconnect]          # any field of fake_pci::system::Interconnect
//! nvlinks = [[0, 1, 2], [2, 3, 2]]
//! ```
//!
//! Anywhere a system is expected, a device preset is a system of one GPU.

use fake_pci::DeviceConfig;
use fake_pci::config::{PRESETS, Value};
use fake_pci::system::{Interconnect, SYSTEM_PRESETS, SystemConfig};

/// The environment variable that selects a preset (a name or a path) for every device
/// opened with default options, and for programs run against libcuda.so.1.
pub const ENV: &str = "RGDEV_PRESET";

/// A built-in preset by name, or a TOML file by path (anything with a `/` or ending in
/// `.toml`), validated.
pub fn load(spec: &str) -> Result<DeviceConfig, String> {
    if is_file(spec) {
        return load_file(std::path::Path::new(spec), 0);
    }
    if let Some(s) = SystemConfig::preset(spec) {
        return Err(format!("`{spec}` is a system of {} GPUs, not one device (open it as a `System`)", s.len()));
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

/// A system preset: a built-in system, a file with a `[system]` table, or a device preset
/// (a system of one GPU), validated.
pub fn load_system(spec: &str) -> Result<SystemConfig, String> {
    if let Some(s) = SystemConfig::preset(spec) {
        return Ok(s);
    }
    if is_file(spec) {
        let path = std::path::Path::new(spec);
        let text = std::fs::read_to_string(path).map_err(|e| format!("{spec}: {e}"))?;
        let table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| format!("{spec}: {}", e.to_string().trim_end()))?;
        if table.contains_key("system") {
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            return parse_system(&table, dir).map_err(|e| format!("{spec}: {e}"));
        }
    }
    load(spec).map(SystemConfig::single).map_err(|e| {
        if is_file(spec) {
            e
        } else {
            let names: Vec<&str> = SYSTEM_PRESETS.iter().map(|p| p.0).collect();
            format!("{e}; systems: {}", names.join(", "))
        }
    })
}

/// The system `RGDEV_PRESET` selects (one default GPU when it is unset).
pub fn system_from_env() -> Result<SystemConfig, String> {
    match std::env::var(ENV) {
        Ok(spec) if !spec.is_empty() => load_system(&spec).map_err(|e| format!("{ENV}: {e}")),
        _ => Ok(SystemConfig::single(DeviceConfig::default())),
    }
}

/// A system file's tables (`dir` resolves a `gpu` file).
fn parse_system(table: &toml::Table, dir: &std::path::Path) -> Result<SystemConfig, String> {
    let sys = table.get("system").and_then(toml::Value::as_table).ok_or("`system` must be a table")?;
    if let Some(key) = table.keys().find(|k| !["system", "interconnect"].contains(&k.as_str())) {
        return Err(format!("unknown table or key `{key}` in a system preset (`[system]`, `[interconnect]`)"));
    }
    let text = |k: &str| match sys.get(k) {
        None => Ok(None),
        Some(toml::Value::String(v)) => Ok(Some(v.clone())),
        Some(_) => Err(format!("`system.{k}` must be a string")),
    };
    let gpu = text("gpu")?
        .map(|g| if is_file(&g) { load(dir.join(&g).to_str().unwrap_or(&g)) } else { load(&g) })
        .transpose()?;
    let mut s = match text("base")? {
        Some(b) => SystemConfig::preset(&b).ok_or_else(|| format!("`system.base`: no system preset named `{b}`"))?,
        None => SystemConfig::single(gpu.clone().unwrap_or_default()),
    };
    if let Some(n) = text("name")? {
        s.name = n;
    }
    if let Some(g) = gpu {
        s.gpus.iter_mut().for_each(|x| *x = g.clone());
    }
    match sys.get("gpus") {
        None => {}
        Some(toml::Value::Integer(n)) if (1..=fake_pci::system::MAX_GPUS as i64).contains(n) => {
            let n = *n as usize;
            if n != s.len() {
                // A new count: the PCIe layout of that many (two per switch), no NVLink.
                s = SystemConfig { unified: s.unified, ..SystemConfig::pcie(&s.name, s.gpus[0].clone(), n) };
            }
        }
        Some(_) => return Err(format!("`system.gpus`: 1 to {} GPUs", fake_pci::system::MAX_GPUS)),
    }
    match sys.get("unified") {
        None => {}
        Some(toml::Value::Boolean(b)) => s.unified = *b,
        Some(_) => return Err("`system.unified` must be true or false".into()),
    }
    if let Some(key) = sys.keys().find(|k| !["base", "name", "gpu", "gpus", "unified"].contains(&k.as_str())) {
        return Err(format!("unknown key `system.{key}` (base, name, gpu, gpus, unified)"));
    }
    if let Some(ic) = table.get("interconnect") {
        let ic = ic.as_table().ok_or("`interconnect` must be a table")?;
        set_interconnect(&mut s.interconnect, ic)?;
    }
    s.validate()?;
    Ok(s)
}

/// Apply `[interconnect]` keys.
fn set_interconnect(ic: &mut Interconnect, t: &toml::Table) -> Result<(), String> {
    let int = |k: &str, v: &toml::Value| {
        v.as_integer()
            .filter(|&i| i >= 0)
            .map(|i| i as u64)
            .ok_or_else(|| format!("`interconnect.{k}` must be a non-negative integer"))
    };
    let list = |k: &str, v: &toml::Value| -> Result<Vec<u32>, String> {
        let a = v.as_array().ok_or_else(|| format!("`interconnect.{k}` must be a list of integers"))?;
        a.iter().map(|x| int(k, x).map(|i| i as u32)).collect()
    };
    for (k, v) in t {
        match k.as_str() {
            "switch_of" => ic.switch_of = list(k, v)?,
            "socket_of_switch" => ic.socket_of_switch = list(k, v)?,
            "nvlinks" => {
                let a = v.as_array().ok_or("`interconnect.nvlinks` must be a list of [a, b, links]")?;
                ic.nvlinks = a
                    .iter()
                    .map(|e| match list(k, e)?.as_slice() {
                        &[x, y, n] => Ok((x, y, n)),
                        _ => Err("`interconnect.nvlinks` entries are [a, b, links]".to_string()),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "nvswitch" => {
                ic.nvswitch =
                    u32::try_from(int(k, v)?).map_err(|_| "`interconnect.nvswitch` is too large".to_string())?
            }
            "nvlink_mbps" => ic.nvlink_mbps = int(k, v)?,
            "nvlink_latency_ns" => ic.nvlink_latency_ns = int(k, v)?,
            "pcie_mbps" => ic.pcie_mbps = int(k, v)?,
            "pix_latency_ns" => ic.pix_latency_ns = int(k, v)?,
            "phb_latency_ns" => ic.phb_latency_ns = int(k, v)?,
            "socket_mbps" => ic.socket_mbps = int(k, v)?,
            "sys_latency_ns" => ic.sys_latency_ns = int(k, v)?,
            _ => return Err(format!("unknown key `interconnect.{k}`")),
        }
    }
    Ok(())
}

/// A system as a preset file: its interconnect in full, every GPU as the first one's
/// preset (`gpu`) when they are all alike.
pub fn system_to_toml(s: &SystemConfig) -> String {
    let ic = &s.interconnect;
    let nums = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let links: Vec<String> = ic.nvlinks.iter().map(|(a, b, n)| format!("[{a}, {b}, {n}]")).collect();
    format!(
        "# rgdev system preset (load with RGDEV_PRESET=FILE.toml or --preset FILE.toml)\n\
         [system]\nname = \"{}\"\ngpus = {}\n# Every GPU's device preset (a built-in name or a file).\ngpu = \"{}\"\n\
         # Present the GPUs to programs as one logical GPU.\nunified = {}\n\n\
         # The PCIe tree, NVLink connections ([a, b, links]) and their speeds.\n[interconnect]\n\
         switch_of = [{}]\nsocket_of_switch = [{}]\nnvlinks = [{}]\n\
         # NVLinks each GPU has into an NVSwitch connecting them all (0: none).\nnvswitch = {}\n\
         nvlink_mbps = {}\nnvlink_latency_ns = {}\n\
         pcie_mbps = {}\npix_latency_ns = {}\nphb_latency_ns = {}\nsocket_mbps = {}\nsys_latency_ns = {}\n",
        s.name,
        s.len(),
        s.gpus[0].name,
        s.unified,
        nums(&ic.switch_of),
        nums(&ic.socket_of_switch),
        links.join(", "),
        ic.nvswitch,
        ic.nvlink_mbps,
        ic.nvlink_latency_ns,
        ic.pcie_mbps,
        ic.pix_latency_ns,
        ic.phb_latency_ns,
        ic.socket_mbps,
        ic.sys_latency_ns
    )
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
        assert!(from_toml("base = \"h300\"").unwrap_err().contains("h300"));
        assert_eq!(from_toml("base = \"h100\"").unwrap().board.cc_major, 9, "a built-in base");
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
    fn systems_load_from_names_and_files() {
        assert_eq!(load_system("dgx1").unwrap().len(), 8);
        assert_eq!(load_system("gf100").unwrap().gpus[0].name, "gf100");
        assert!(load_system("nope").unwrap_err().contains("dgx1"));
        let dir = std::env::temp_dir().join(format!("rgdev-system-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("small.toml"), "base = \"gv100\"\nboard.sms = 4\n").unwrap();
        let file = dir.join("pair.toml");
        std::fs::write(
            &file,
            "[system]\nname = \"pair\"\ngpus = 2\ngpu = \"small.toml\"\n[interconnect]\nnvlinks = [[0, 1, 4]]\n",
        )
        .unwrap();
        let s = load_system(file.to_str().unwrap()).unwrap();
        assert_eq!((s.name.as_str(), s.len(), s.gpus[1].board.sms), ("pair", 2, 4));
        assert_eq!(s.path(0, 1), fake_pci::system::Path::NvLink(4));
        // A preset file written from a system loads back the same.
        let dgx = load_system("dgx1").unwrap();
        std::fs::write(dir.join("dgx.toml"), system_to_toml(&dgx)).unwrap();
        assert_eq!(load_system(dir.join("dgx.toml").to_str().unwrap()).unwrap(), dgx);
        std::fs::write(&file, "[system]\ngpus = 2\n[interconnect]\nnvlinks = [[0, 1, 9]]\n").unwrap();
        assert!(load_system(file.to_str().unwrap()).unwrap_err().contains("ports"));
        std::fs::write(&file, "[system]\ngpus = 2\nspeed = 3\n").unwrap();
        assert!(load_system(file.to_str().unwrap()).unwrap_err().contains("system.speed"));
        let _ = std::fs::remove_dir_all(dir);
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
