//! Handles to the bodies and colliders of a [`World`](crate::World).

/// A body of a [`World`](crate::World), as returned by the `add_*` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyHandle(pub(crate) u32);

impl BodyHandle {
    /// The body's index in [`World::bodies`](crate::World::bodies), in the order the bodies
    /// were added.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A collider of a [`World`](crate::World), as returned by
/// [`World::add_collider`](crate::World::add_collider).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColliderHandle(pub(crate) u32);

impl ColliderHandle {
    /// The collider's index in [`World::colliders`](crate::World::colliders), in the order the
    /// colliders were added.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
