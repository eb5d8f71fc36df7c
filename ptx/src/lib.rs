//! # ptx — PTX to the rgdev device ISA
//!
//! The "JIT" behind module loading: [`parse()`] turns PTX text (version 6.0 and later, the
//! subset of `docs/clients.md`) into a syntax tree; `compile` turns that into device
//! instructions and the metadata the runtime needs. Errors name the line, the column and
//! what was expected; unsupported PTX is an error naming the feature, never a panic.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod ast;
pub mod carry;
pub mod compile;
pub mod container;
pub mod error;
pub mod fatbin;
pub mod indirect;
pub mod lexer;
pub mod link;
pub mod parse;
pub mod program;
pub mod spill;

pub use compile::initial_values;
pub use compile::{Options, compile, compile_ptx, compile_ptx_with, compile_with};
pub use error::{PtxError, Result};
pub use link::{Input, link};
pub use parse::parse;
pub use program::{Kernel, Program};
