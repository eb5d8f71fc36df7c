//! A system of GPUs as the driver sees it, above each GPU's runtime ([`crate::api`]):
//!
//! - [`peers`]: peer access between contexts of different GPUs (cuCtxEnablePeerAccess),
//!   the mappings it keeps, and copies between GPUs over the link or through the host.
//!
//! The unified-memory service ([`crate::uvm`]) is the system's other service.

pub mod peers;

pub use peers::{Access, Peers};
