use super::*;

#[test]
fn a_remote_batch_is_written_once_and_a_gap_before_it_is_noticed() {
    // In order: all of it.
    assert_eq!(
        window(5, 5, 3),
        Some(Window {
            skip: 0,
            gap: false,
            next: 8
        })
    );
    // Entirely seen before (a duplicate publish): nothing.
    assert_eq!(window(8, 5, 3), None);
    assert_eq!(window(9, 5, 3), None);
    // Overlapping what was written: only the new tail.
    assert_eq!(
        window(7, 5, 3),
        Some(Window {
            skip: 2,
            gap: false,
            next: 8
        })
    );
    // Something before it was lost: all of it, and a resync.
    assert_eq!(
        window(5, 7, 2),
        Some(Window {
            skip: 0,
            gap: true,
            next: 9
        })
    );
}
