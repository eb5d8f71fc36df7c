//! A system of simulated GPUs: one [`Device`] per GPU of a [`SystemConfig`], each its own
//! PCI function with its own BARs (at its [`Placement`](fake_pci::system::Placement)),
//! VRAM, PFIFO, engines and SMs, probed and brought up by its own instance of the runtime
//! as a driver brings up each function it finds; the handles of GPU `i` carry `i`
//! (`runtime_core::ordinal_of`), so no two GPUs' handles collide. The devices share the process's unified
//! address range, so a device pointer names one GPU's memory in the whole process, and
//! in stepped mode one clock ([`Lockstep`](crate::Lockstep)): waiting on one GPU runs
//! the others to the same time.

use crate::{Device, DeviceOptions, Result, SystemConfig};

/// The GPUs of a system, in ordinal order.
pub struct System {
    config: SystemConfig,
    devices: Vec<Device>,
    clock: std::sync::Arc<crate::Lockstep>,
}

impl System {
    /// The system `RGDEV_PRESET` names (a system preset, a system file, or a device preset
    /// as a system of one GPU); a preset that does not load is reported on stderr and gives
    /// `CuError::InvalidValue`.
    pub fn open() -> Result<Self> {
        let config = crate::preset::system_from_env().map_err(|e| {
            eprintln!("rgdev: {e}");
            runtime_core::CuError::InvalidValue
        })?;
        Self::open_with(config, &DeviceOptions::default())
    }

    /// Bring up every GPU of `config`, each with `opts` (its configuration and place
    /// replaced by the system's).
    pub fn open_with(config: SystemConfig, opts: &DeviceOptions) -> Result<Self> {
        if let Err(e) = config.validate() {
            eprintln!("rgdev: system {}: {e}", config.name);
            return Err(runtime_core::CuError::InvalidValue);
        }
        let clock = crate::Lockstep::for_system(&config);
        let devices = (0..config.len())
            .map(|i| {
                let o = DeviceOptions {
                    config: config.gpus[i].clone(),
                    placement: Some(config.placement(i)),
                    ordinal: i as u32,
                    lockstep: Some(clock.clone()),
                    ..opts.clone()
                };
                Device::open_with(o)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { config, devices, clock })
    }

    /// The system's shared clock (stepped mode): how many host threads it may use
    /// (`Lockstep::set_threads`; the cycles and results do not depend on it).
    pub fn clock(&self) -> &crate::Lockstep {
        &self.clock
    }

    /// The system's configuration (GPUs and interconnect).
    pub fn config(&self) -> &SystemConfig {
        &self.config
    }

    /// The GPUs, in ordinal order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// GPU `i`.
    pub fn device(&self, i: usize) -> Option<&Device> {
        self.devices.get(i)
    }

    /// How many GPUs.
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Whether there are none (never).
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }
}
