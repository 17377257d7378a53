DROP TABLE admin_actions;
