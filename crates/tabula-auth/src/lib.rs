//! Telegram Mini App initData validation and Tabula session tokens (in progress).
