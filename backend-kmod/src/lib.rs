#![no_std]
//! proto
