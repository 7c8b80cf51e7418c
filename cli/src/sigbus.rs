//! A file cut short under a map: one line and exit status 1, not a death by
//! SIGBUS (status 135, no word). One-shot commands map the tables they read
//! (`chomp3::f::table::OpenOptions::mapped`); if another program cuts such a
//! file in place while it is read, touching a lost page raises SIGBUS. No
//! value is taken from the lost part: the process ends at that read, after
//! this line. Nothing here may allocate (a signal handler): the line is a
//! constant, written with write(2), and the process ends with _exit(2).

/// What is said, whole.
const LINE: &[u8] = b"chomp3: error: a file this command had mapped was cut short by another \
program while it was read (SIGBUS); nothing was printed from the part cut off\n";

/// Installs the handler; call once, before any file is mapped.
pub fn say_when_cut() {
    // SAFETY: `sigaction` with a zeroed struct, a handler of the plain
    // signature and an empty mask; the handler only calls write(2) and
    // _exit(2), which are async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = cut as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

extern "C" fn cut(_: libc::c_int) {
    // SAFETY: write(2) of a constant buffer to standard error, then _exit(2);
    // both are async-signal-safe. What write(2) returns does not matter.
    unsafe {
        libc::write(2, LINE.as_ptr().cast(), LINE.len());
        libc::_exit(1);
    }
}
