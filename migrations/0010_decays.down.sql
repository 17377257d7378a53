DROP TABLE decays;
