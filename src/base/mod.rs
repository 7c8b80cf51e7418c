//! The plumbing every game shares: file bytes and checked integer narrowing,
//! atomic writes, one writer per output (lock), the stop token, errors that
//! name their file, files a user names opened only when they are regular files
//! (input), sealed text results and text results read as committed (`.xz`
//! too), the machine's memory and
//! the worker threads it should run, the binary's allocator, paths quoted for the shell, integer helpers of the proofs and the lines of text
//! results. Nothing here knows a game; nothing here uses the games.

pub mod atomic_write;
pub(crate) mod bytes;
pub mod huge;
pub mod input;
pub mod interval;
pub mod lines;
pub mod lock;
pub mod memory;
pub(crate) mod numeric;
pub mod path_message;
pub mod seal;
pub mod shell;
pub mod stop;
#[cfg(test)]
pub(crate) mod test_rng;
pub mod text;
pub mod threads;
pub mod xz_len;
