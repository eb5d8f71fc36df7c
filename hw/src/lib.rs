//! # hw — the one register table and binary formats of the rgdev GPU
//!
//! Everything the driver (`runtime-core`) and the simulated device (`fake-pci`) must agree
//! on is declared here exactly once: BAR0 registers (offset, access kind, reset value,
//! writable bits, field layout), PCI configuration space, the MMU's PDE/PTE formats, the
//! instance block / RAMFC / USERD layouts, GPFIFO entries and pushbuffer method headers,
//! and the method numbers of the host (906F) and copy (90B5) classes.
//!
//! The facts follow NVIDIA Fermi (GF100) as documented by envytools, nouveau, NVIDIA's
//! open-gpu-doc class headers and Gdev. Where the model simplifies or adds something of
//! its own, the definition says so. Layouts are `modular-bitfield` structs; they describe
//! values only — MMIO access is done by the driver's bus and the device's register file.
//! No logic lives here beyond encoding and decoding.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod check;
pub mod class;
pub mod cmd;
pub mod export;
pub mod heap;
pub mod inst;
pub mod isa;
pub mod mmu;
pub mod occupancy;
pub mod pci;
pub mod printf;
pub mod regs;
pub mod replay;
pub mod tex;
