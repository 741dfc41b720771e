package dev.bellows.examples.springboot;

import dev.bellows.tool.Description;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Every {@link Tool} bean is one of the agent's tools. */
@Configuration(proxyBeanMethods = false)
public class WeatherTools {

    @Description("Where and when to forecast")
    record WeatherQuery(@Description("City name, e.g. Oslo") String city,
                        @Description("Days ahead, 0 for today") int days) { }

    record Forecast(String city, int days, double celsius) { }

    @Bean
    Tool getWeather() {
        return TypedTool.of("get_weather", "Weather forecast for a city", WeatherQuery.class,
                (context, query) -> ToolResult.of(new Forecast(query.city(), query.days(), 18.5 + query.days())));
    }
}
