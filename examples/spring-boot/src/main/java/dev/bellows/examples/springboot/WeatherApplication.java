package dev.bellows.examples.springboot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot application with a Bellows agent: the starter builds the agent from
 * {@code application.properties}, {@link WeatherTools} gives it a tool, {@link AskController}
 * streams each run to the browser ({@code static/index.html}) as Server-Sent Events.
 */
@SpringBootApplication
public class WeatherApplication {

    public static void main(String[] args) {
        SpringApplication.run(WeatherApplication.class, args);
    }
}
