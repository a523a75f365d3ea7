"""Installing paperbot into many workspaces: Bolt's OAuth flow and the installation store."""
