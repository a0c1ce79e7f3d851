//! Without a display, opening the window is an error, not a panic.
#![cfg(feature = "viewer")]

use supple::World;
use supple::viewer::{ViewerError, display_available, run_window};

#[test]
fn run_window_without_a_display_is_an_error() {
    if display_available() {
        println!("SKIPPED: a display is set, and this test must not open a window");
        return;
    }
    let error = run_window(World::default(), "no display").unwrap_err();
    assert!(
        matches!(error.downcast_ref(), Some(ViewerError::NoDisplay)),
        "{error}"
    );
}
