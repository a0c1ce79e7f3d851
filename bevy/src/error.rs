//! Errors as messages: the app keeps running.

use bevy::ecs::entity::Entity;
use bevy::prelude::Message;
use std::fmt;

/// Something the plugin could not do, sent as a message (read it with a
/// `MessageReader<SuppleError>`); the app keeps running. A description that cannot be built
/// leaves its entity out of the simulation (marked [`SuppleFailed`](crate::SuppleFailed)); a
/// simulation that blows up pauses the world ([`SuppleControl::paused`](crate::SuppleControl)).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct SuppleError {
    /// The entity concerned, when there is one.
    pub entity: Option<Entity>,
    /// The key of the description that is wrong (`stretch.k`, `mesh`, `target`), when there is
    /// one.
    pub key: Option<String>,
    /// What is wrong and what was expected, or the simulation's error naming its body and frame.
    pub message: String,
}

impl SuppleError {
    /// The error at `key` of `entity`'s description.
    pub fn at(entity: Entity, key: impl Into<String>, message: impl Into<String>) -> Self {
        SuppleError {
            entity: Some(entity),
            key: Some(key.into()),
            message: message.into(),
        }
    }
}

impl fmt::Display for SuppleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(entity) = self.entity {
            write!(f, "entity {entity}: ")?;
        }
        if let Some(key) = &self.key {
            write!(f, "`{key}` ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SuppleError {}
