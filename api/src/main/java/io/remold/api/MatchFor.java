package io.remold.api;

/** Whether one ({@code Any}) or every ({@code All}) selected value has to match. */
public enum MatchFor { Any, All }
